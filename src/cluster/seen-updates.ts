/**
 * Which webhook updates some front has already taken, across every front. Telegram posts an update
 * again when it did not get a front's answer in time (a lost connection, a slow proxy), and behind
 * a load balancer the second post may reach another front, whose own memory of update_ids
 * (src/bot/webhook.ts) has never seen it: the user would get two answers, or a flow step twice.
 * One key per update, `{prefix}update:<id>`, set only if absent, for UPDATE_SEEN_MS: Telegram
 * re-sends within minutes, and an hour of a busy bot's updates is a few MB.
 *
 * Redis out of reach: the update counts as first seen (the front's own check still ran). Handling
 * a rare re-sent update twice is better than dropping every update while Redis is down; the front's
 * other shared state fails safe on its own.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { FirstSeen } from '../bot/webhook.js';
import { stateCall, type SharedStateOptions } from './state-calls.js';

export const UPDATE_SEEN_MS = 3_600_000;

export function createSeenUpdates(redis: Redis, opts: SharedStateOptions & { logger: Logger }): FirstSeen {
  const log = opts.logger.child({ module: 'seen-updates' });
  return async (updateId) => {
    try {
      const set = await stateCall('marking the update as taken', redis.set(`${opts.prefix}update:${updateId}`, '1', 'PX', UPDATE_SEEN_MS, 'NX'), opts.timeoutMs);
      return set === 'OK';
    } catch (err) {
      log.warn({ err, update_id: updateId }, 'could not check whether another front took this update: handling it here');
      return true;
    }
  };
}
