/**
 * Bot API calls inside conversations, made once. The conversations plugin runs a flow again from
 * its first line on every update and hands each earlier call its recorded answer. A transformer
 * that a plugin installs on the conversation's Api sits outside that record, so it ran again on
 * every replay: the chat gate made each earlier reply wait for a fresh chat slot, and step N of a
 * flow answered about N seconds late (and spent the chat's Telegram budget that its alerts need).
 *
 * So the conversation's Api does not call Telegram itself: every call becomes one
 * `conversation.external` step that goes through the bot's own Api (chat gate, retries, HTML by
 * default). A replay gets the recorded answer back and sends, waits and counts nothing.
 */
import { GrammyError, HttpError, type Api, type Transformer } from 'grammy';
import type { Convo } from './prompt.js';

/** Telegram's answer as a transformer returns it; the only shape kept in the conversation's record. */
type ApiAnswer = { ok: true; result: unknown } | { ok: false; error_code: number; description: string; parameters?: unknown };

/** What a call that never got an answer (network, timeout) leaves in the record: the message only, never the URL with the token. */
interface Unanswered {
  message: string;
}

/** grammY's own AbortSignal type (from its abort-controller shim), as transformers receive it. */
type Signal = Parameters<Transformer>[3];
type RawCall = (payload: unknown, signal?: Signal) => Promise<unknown>;

/** One call through `api`, with Telegram's refusals turned back into the answer it sent. */
async function answerOf(api: Api, method: string, payload: unknown, signal: Signal): Promise<ApiAnswer> {
  const call = (api.raw as unknown as Record<string, RawCall>)[method];
  if (call === undefined) throw new Error(`unknown Bot API method ${method}`);
  try {
    return { ok: true, result: await call(payload, signal) };
  } catch (err) {
    if (!(err instanceof GrammyError)) throw err;
    return { ok: false, error_code: err.error_code, description: err.description, ...(err.parameters ? { parameters: err.parameters } : {}) };
  }
}

/** The transformer for a conversation's Api: each call is made once, through `api`, and replayed from the record. */
export function callsOnce(conversation: Convo, api: Api): Transformer {
  return async (_replayLog, method, payload, signal) => {
    const answer = await conversation.external({
      task: () => answerOf(api, method, payload, signal),
      beforeStoreError: (err: unknown): Unanswered => ({ message: err instanceof Error ? err.message : 'unknown error' }),
      afterLoadError: (err: Unanswered) => new HttpError(err.message, new Error(err.message)),
    });
    // The conversation's own Api turns `ok: false` into a GrammyError, as for any call.
    return answer as never;
  };
}
