/**
 * A ledger file to a chat (the chat's /export and /archive, the Mini App's "send CSV to the chat"):
 * Telegram's refusal (a 4xx with its words, or no answer) is a value with its reason, so each caller
 * can say what happened and what to do; any other fault is thrown.
 */
import { GrammyError, HttpError, InputFile, type Api } from 'grammy';
import type { Logger } from '../../logger.js';

export type SendOutcome = { ok: true } | { ok: false; reason: string };

export const isRefusal = (err: unknown): err is GrammyError | HttpError => err instanceof GrammyError || err instanceof HttpError;

/** Telegram's own words when it gave some (cut to fit a message), else `unknown`. */
export function refusalReason(err: GrammyError | HttpError, unknown: string): string {
  const said = err instanceof GrammyError ? err.description : undefined;
  return typeof said === 'string' && said.trim() !== '' ? said.slice(0, 160) : unknown;
}

export async function sendDocument(
  api: Api,
  chatId: number,
  file: { bytes: Buffer; fileName: string; caption: string },
  log: Logger,
  unknownReason: string,
): Promise<SendOutcome> {
  try {
    await api.sendDocument(chatId, new InputFile(file.bytes, file.fileName), { caption: file.caption });
    return { ok: true };
  } catch (err) {
    if (!isRefusal(err)) throw err;
    log.warn({ err, bytes: file.bytes.length, fileName: file.fileName }, 'Telegram refused a ledger file upload');
    return { ok: false, reason: refusalReason(err, unknownReason) };
  }
}
