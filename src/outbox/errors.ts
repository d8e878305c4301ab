/**
 * What a failed Bot API call means for the outbox. grammY throws `GrammyError` (Telegram answered
 * with `error_code`, `description` and `parameters.retry_after`) or `HttpError` (the request did
 * not complete); the shape is checked structurally so any client that throws Telegram's error
 * fields is understood.
 */
import { z } from 'zod';
import { redactSecrets } from '../logger.js';

const telegramErrorSchema = z.object({
  error_code: z.number().int(),
  description: z.string(),
  parameters: z
    .object({ retry_after: z.number().nonnegative().optional(), migrate_to_chat_id: z.number().optional() })
    .optional(),
});

export type TelegramFailure =
  /** 429 (or any answer with retry_after): wait that long. */
  | { kind: 'rate-limited'; retryAfterMs: number; description: string }
  /** 403: the user blocked the bot, or the bot left the group or channel. */
  | { kind: 'blocked'; description: string }
  /** An edit to the text and keyboard the message already has: nothing to do. */
  | { kind: 'not-modified'; description: string }
  /** The message to edit is gone (deleted, too old): nothing to do. */
  | { kind: 'message-gone'; description: string }
  /** The group became a supergroup: the same chat now answers under `newChatId`. */
  | { kind: 'migrated'; newChatId: number; description: string }
  /** The chat is gone or the bot may no longer post there (restricted, not an admin): check the destination. */
  | { kind: 'chat-unavailable'; description: string }
  /** 5xx, a network failure or a timeout: worth retrying. */
  | { kind: 'transient'; description: string }
  /** Any other refusal: retrying the same call cannot help. */
  | { kind: 'permanent'; description: string };

/** A 429 without retry_after (not seen from Telegram, but possible from a proxy) waits this long. */
const DEFAULT_RETRY_AFTER_MS = 1000;

/** Telegram's 400s that say the chat, or the bot's right to post in it, is gone. */
const CHAT_UNAVAILABLE =
  /chat not found|not enough rights|need administrator rights|have no rights to send|CHAT_WRITE_FORBIDDEN|CHAT_RESTRICTED|CHAT_ADMIN_REQUIRED|bot is not a member|group chat was deactivated|chat was deleted|PEER_ID_INVALID/i;

export function classifyTelegramError(err: unknown): TelegramFailure {
  const parsed = telegramErrorSchema.safeParse(err);
  if (!parsed.success) return { kind: 'transient', description: describeError(err) };
  const { error_code: code, parameters } = parsed.data;
  const description = redactSecrets(parsed.data.description);
  if (parameters?.retry_after !== undefined) {
    return { kind: 'rate-limited', retryAfterMs: parameters.retry_after * 1000, description };
  }
  if (code === 429) return { kind: 'rate-limited', retryAfterMs: DEFAULT_RETRY_AFTER_MS, description };
  if (code === 403) return { kind: 'blocked', description };
  if (parameters?.migrate_to_chat_id !== undefined) return { kind: 'migrated', newChatId: parameters.migrate_to_chat_id, description };
  if (code === 400 && CHAT_UNAVAILABLE.test(description)) return { kind: 'chat-unavailable', description };
  if (code === 400 && /message is not modified/i.test(description)) return { kind: 'not-modified', description };
  if (code === 400 && /message to edit not found|message can't be edited|MESSAGE_ID_INVALID/i.test(description)) {
    return { kind: 'message-gone', description };
  }
  if (code >= 500) return { kind: 'transient', description };
  return { kind: 'permanent', description };
}

/** One line about an error, safe to log: no bot token, no credentials. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const inner = 'error' in err && err.error instanceof Error ? `: ${err.error.message}` : '';
    return redactSecrets(`${err.message}${inner}`);
  }
  return redactSecrets(String(err));
}
