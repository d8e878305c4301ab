/**
 * Telegram's flood control, as the fake Bot API enforces it when asked (`floodControl` option):
 * about one message a second per chat with a small burst, 30 a second for the whole bot, 20 a
 * minute per group. Sends and edits count alike; a request over a limit is answered 429 with
 * `retry_after`, and until that time is over every request to the chat (or, after a global 429,
 * to any chat) is "early": it is refused again and counted, because Telegram punishes exactly
 * that with longer waits. Counted at arrival, on the fake's clock. A chat's bucket is a fraction that
 * refills with each millisecond, as a server's own count may be: a call that arrives holding exactly
 * one token by a client's exact count can be refused by a rounding error, so a client must keep clear
 * of that edge (the outbox does: `LAST_TOKEN_GUARD_MS`).
 */

/** The limits; the defaults are Telegram's published ones. */
export interface FloodLimits {
  /** Messages a second per chat (default 1). */
  perChatPerSecond: number;
  /** Messages a chat may take at once before the per-second pace applies (default 3). */
  perChatBurst: number;
  /** Messages a second over all chats (default 30). */
  globalPerSecond: number;
  /** Messages a minute per group or channel (negative chat id; default 20). */
  perGroupPerMinute: number;
}

export const TELEGRAM_FLOOD_LIMITS: FloodLimits = { perChatPerSecond: 1, perChatBurst: 3, globalPerSecond: 30, perGroupPerMinute: 20 };

/** One request that reached a chat before its retry_after was over. */
export interface EarlyRequest {
  method: string;
  chatId: number;
  at: number;
  /** How long before the end of the wait it came, ms. */
  earlyByMs: number;
}

/** What flood control saw. */
export interface FloodStats {
  /** Requests that counted against a limit (sends and edits), accepted or not. */
  counted: number;
  /** 429 answers given for a limit (early requests included). */
  tooMany: number;
  /** 429 answers by method. */
  tooManyByMethod: Record<string, number>;
  /** Requests to a chat before its retry_after was over. */
  early: number;
  /** The first 1,000 of them. */
  earlyLog: EarlyRequest[];
}

/** Whether a method sends or changes a message (what the limits count). */
export function countsAgainstFlood(method: string): boolean {
  const m = method.toLowerCase();
  if (m === 'sendchataction') return false;
  return m.startsWith('send') || m.startsWith('edit') || m === 'copymessage' || m === 'forwardmessage';
}

const EARLY_LOG_CAP = 1_000;

export class FloodControl {
  private readonly chatTokens = new Map<number, { tokens: number; at: number }>();
  private readonly groupTimes = new Map<number, number[]>();
  private globalTimes: number[] = [];
  private readonly blockedUntil = new Map<number, number>();
  private globalBlockedUntil = 0;
  private readonly stats: FloodStats = { counted: 0, tooMany: 0, tooManyByMethod: {}, early: 0, earlyLog: [] };

  constructor(private readonly limits: FloodLimits = TELEGRAM_FLOOD_LIMITS) {}

  /**
   * Decides one request to `chatId` at `now`: undefined to let it through, or the seconds to
   * answer in `retry_after`. Requests that do not count against a limit are only checked for
   * being early.
   */
  check(method: string, chatId: number, now: number): number | undefined {
    const waitUntil = Math.max(this.blockedUntil.get(chatId) ?? 0, this.globalBlockedUntil);
    if (now < waitUntil) {
      this.stats.early += 1;
      if (this.stats.earlyLog.length < EARLY_LOG_CAP) this.stats.earlyLog.push({ method, chatId, at: now, earlyByMs: waitUntil - now });
      return this.refuse(method, Math.ceil((waitUntil - now) / 1000));
    }
    if (!countsAgainstFlood(method)) return undefined;
    this.stats.counted += 1;

    this.globalTimes = this.globalTimes.filter((t) => t > now - 1_000);
    if (this.globalTimes.length >= this.limits.globalPerSecond) {
      const seconds = Math.max(1, Math.ceil(((this.globalTimes[0] ?? now) + 1_000 - now) / 1000));
      this.globalBlockedUntil = now + seconds * 1000;
      return this.refuse(method, seconds);
    }
    if (chatId < 0) {
      const times = (this.groupTimes.get(chatId) ?? []).filter((t) => t > now - 60_000);
      this.groupTimes.set(chatId, times);
      if (times.length >= this.limits.perGroupPerMinute) {
        const seconds = Math.max(1, Math.ceil(((times[0] ?? now) + 60_000 - now) / 1000));
        this.blockedUntil.set(chatId, now + seconds * 1000);
        return this.refuse(method, seconds);
      }
    }
    const bucket = this.chatTokens.get(chatId) ?? { tokens: this.limits.perChatBurst, at: now };
    bucket.tokens = Math.min(this.limits.perChatBurst, bucket.tokens + ((now - bucket.at) / 1000) * this.limits.perChatPerSecond);
    bucket.at = now;
    this.chatTokens.set(chatId, bucket);
    if (bucket.tokens < 1) {
      const seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.limits.perChatPerSecond));
      this.blockedUntil.set(chatId, now + seconds * 1000);
      return this.refuse(method, seconds);
    }
    bucket.tokens -= 1;
    this.globalTimes.push(now);
    if (chatId < 0) this.groupTimes.get(chatId)?.push(now);
    return undefined;
  }

  snapshot(): FloodStats {
    return { ...this.stats, tooManyByMethod: { ...this.stats.tooManyByMethod }, earlyLog: this.stats.earlyLog.map((e) => ({ ...e })) };
  }

  private refuse(method: string, seconds: number): number {
    this.stats.tooMany += 1;
    this.stats.tooManyByMethod[method] = (this.stats.tooManyByMethod[method] ?? 0) + 1;
    return seconds;
  }
}
