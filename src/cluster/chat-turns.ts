/**
 * One chat's updates handled one at a time across every front. Each front already keeps a chat's
 * updates in order among its own (`sequentialize` in bot.ts); behind one webhook Telegram may post
 * two updates of one chat to two fronts at once, and without a turn both would read the same flow
 * state or open question and the later write would undo the earlier (a toggle lost, an answer taken
 * twice). The turn is a Redis key per chat, `{prefix}turn:<chat>`, set only if absent (SET NX) with
 * a random token and an expiry (PX), and deleted on release only by its holder (a Lua compare and
 * delete), so a front that dies holding it delays that chat for `holdMs` at most.
 *
 * A front that finds the turn taken asks again every `pollMs` (real time: this is waiting for
 * another process, not timing logic) for up to `waitMs`; past that it goes on without the turn, as a
 * front alone would, and logs it: a handler that slow (a key check against a slow service) should
 * not stall the chat's next update for longer. Redis out of reach: StateUnavailableError, and the
 * bot fails safe on it like on the rest of the shared state.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { ChatTurns } from '../bot/deps.js';
import { defineScript, type ScriptCall } from './redis-calls.js';
import { stateCall, type SharedStateOptions } from './state-calls.js';

/** KEYS turn; ARGV token: deleted only by its holder. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export interface ChatTurnOptions extends SharedStateOptions {
  logger: Logger;
  /** How long a turn is held at most (a handler that outlives it loses it). */
  holdMs?: number;
  /** How long a front waits for another's turn before going on without one. */
  waitMs?: number;
  pollMs?: number;
}

export const CHAT_TURN_HOLD_MS = 30_000;
export const CHAT_TURN_WAIT_MS = 15_000;
export const CHAT_TURN_POLL_MS = 20;

export function createChatTurns(redis: Redis, opts: ChatTurnOptions): ChatTurns {
  const holdMs = opts.holdMs ?? CHAT_TURN_HOLD_MS;
  const waitMs = opts.waitMs ?? CHAT_TURN_WAIT_MS;
  const pollMs = opts.pollMs ?? CHAT_TURN_POLL_MS;
  const releaseScript: ScriptCall = defineScript(redis, 'bbChatTurnRelease', 1, RELEASE);
  const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

  return async (chat, run) => {
    const key = `${opts.prefix}turn:${chat}`;
    const token = randomBytes(9).toString('base64url');
    const started = Date.now();
    let held = false;
    for (;;) {
      held = (await stateCall('taking the chat\'s turn', redis.set(key, token, 'PX', holdMs, 'NX'), opts.timeoutMs)) === 'OK';
      if (held || Date.now() - started >= waitMs) break;
      await pause(pollMs);
    }
    if (!held) opts.logger.warn({ waitedMs: Date.now() - started }, 'another front held this chat\'s turn too long: handling the update without it');
    try {
      await run();
    } finally {
      // A failed release only leaves the turn to expire by itself.
      if (held) await releaseScript([key], [token]).catch(() => undefined);
    }
  };
}
