/**
 * Command replies through the outbox's per-chat budget. Telegram counts a reply, an alert and an
 * edit alike against a chat (a burst of about three, then about one a second) and, after a 429, refuses everything to that
 * chat until `retry_after` is over — so replies must wait for the same slots and pauses as the
 * outbox's own sends, or one of them gets a 429 and the other is sent too early.
 *
 * `chatGateTransformer` is a grammY API transformer: install it on `bot.api` and in the
 * conversations' `plugins` (their Api objects do not inherit `bot.api`'s transformers). Each call
 * that names a chat waits for that chat's turn (replies go before new alerts, gone marks and
 * edits), reports its answer, and on a 429 waits the `retry_after` out and tries again: the
 * handler sees the answer a moment later, never the 429.
 */
import type { Transformer } from 'grammy';

/** What a call learned about the budget. */
export interface GateOutcome {
  /** Telegram answered 429 (or any answer with retry_after): wait this long before anything else to the chat. */
  retryAfterMs?: number;
}

/** A granted turn: report the call's outcome exactly once. */
export interface GateTicket {
  done(outcome: GateOutcome): void;
}

/** The outbox's side of the gate (`Outbox` implements it). */
export interface ChatGate {
  /**
   * Resolves when a call may go: for a chat, in its turn within the chat's and the bot's budget
   * (`counted`: it is a message or an edit, which Telegram counts); without a chat, once no
   * bot-wide pause is on.
   */
  acquire(chatId: number | undefined, counted: boolean): Promise<GateTicket>;
}

/** Calls that never wait: the long poll, and start-up calls that name no chat and happen before the gate runs. */
const UNGATED = new Set(['getUpdates', 'getMe', 'deleteWebhook', 'setMyCommands', 'close', 'logOut']);

/** Sends and edits count against a chat's budget; reads, deletes and chat actions only wait out pauses. */
export function isCounted(method: string): boolean {
  if (method === 'sendChatAction') return false;
  return /^(send|edit|copyMessage|forwardMessage)/.test(method);
}

/** The numeric chat a call is about (a `@username` is left alone: no budget is known for it). */
export function chatOf(payload: unknown): number | undefined {
  if (typeof payload !== 'object' || payload === null || !('chat_id' in payload)) return undefined;
  const id = payload.chat_id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
}

/** One answer from the Bot API, as far as the gate reads it. */
function retryAfterOf(result: unknown): number | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as { ok?: unknown; error_code?: unknown; parameters?: { retry_after?: unknown } };
  if (r.ok !== false) return undefined;
  const after = r.parameters?.retry_after;
  if (typeof after === 'number' && after >= 0) return after * 1000;
  return r.error_code === 429 ? 1000 : undefined;
}

/** A reply keeps trying through 429s this many times before the answer is handed up as it is. */
const MAX_RATE_LIMITED_TRIES = 20;

export function chatGateTransformer(gate: ChatGate): Transformer {
  return async (prev, method, payload, signal) => {
    if (UNGATED.has(method)) return prev(method, payload, signal);
    const chatId = chatOf(payload);
    const counted = chatId !== undefined && isCounted(method);
    for (let tries = 1; ; tries++) {
      const ticket = await gate.acquire(chatId, counted);
      let result;
      try {
        result = await prev(method, payload, signal);
      } catch (err) {
        ticket.done({});
        throw err;
      }
      const retryAfterMs = retryAfterOf(result);
      ticket.done(retryAfterMs === undefined ? {} : { retryAfterMs });
      if (retryAfterMs === undefined || tries >= MAX_RATE_LIMITED_TRIES || signal?.aborted) return result;
    }
  };
}
