/**
 * One sender at a time. Telegram counts every message of the bot against one budget (about 30 a
 * second) and every chat's against its own (one a second, a burst of three); the outbox keeps both,
 * but only for what passes through it. Several fronts (behind a webhook) each taking alerts off the
 * queue would each keep their own budgets and together exceed Telegram's. So the fronts hold a
 * lease in Redis, `{prefix}sender`, and only its holder consumes the alert stream; the others answer
 * their users' updates and stand by. A holder that stops releases it at once; one that dies or
 * loses Redis lets it lapse (TTL), and a standby takes it at its next try.
 *
 * As the bucket leases do (leases.ts), a holder counts the lease as its own only until a second
 * before it could lapse, measured from when it sent the renewal, so a front paused or cut off from
 * Redis stops taking alerts before another front may start. Jobs a front already had in hand are
 * still sent by it: for those moments two fronts may send at once.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { defineScript, type ScriptCall } from './redis-calls.js';

export interface SenderLeaseTimings {
  /** The lease's lifetime in Redis. */
  ttlMs: number;
  /** How often the holder renews it and a standby tries to take it. */
  everyMs: number;
  /** Counted as held only until this long before it could lapse. */
  safetyMs: number;
}

export const DEFAULT_SENDER_LEASE: SenderLeaseTimings = { ttlMs: 10_000, everyMs: 3_000, safetyMs: 1_000 };

export interface SenderLeaseOptions {
  redis: Redis;
  /** The cluster's key prefix (REDIS_PREFIX). */
  prefix: string;
  /** This front's name in the lease (unique per process). */
  holder: string;
  logger: Logger;
  /** Called when this front becomes the sender (true) or stops being it (false). */
  onChange(held: boolean): void;
  timings?: Partial<SenderLeaseTimings>;
  /** A monotonic clock in ms (default performance.now); never the wall clock, which can jump. */
  now?: () => number;
}

export interface SenderLease {
  /** Whether this front is the sender now. */
  held(): boolean;
  /** Stops trying; releases the lease if held (the next front takes it at its next try). */
  stop(): Promise<void>;
}

/** KEYS[1] lease; ARGV holder, ttl → 1 when the holder has it (taken or renewed), else 0. */
const TAKE = `
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] or not current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`;

/** KEYS[1] lease; ARGV holder → deletes it only if the holder has it. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** Starts taking part: tries at once, then every `everyMs`. */
export function startSenderLease(opts: SenderLeaseOptions): SenderLease {
  const t: SenderLeaseTimings = { ...DEFAULT_SENDER_LEASE, ...opts.timings };
  const log = opts.logger.child({ module: 'sender-lease' });
  const key = `${opts.prefix}sender`;
  const take: ScriptCall = defineScript(opts.redis, 'bbSenderLeaseTake', 1, TAKE);
  const release: ScriptCall = defineScript(opts.redis, 'bbSenderLeaseRelease', 1, RELEASE);
  /** Until when (`now`) the lease is ours, from when the last successful renewal was sent. */
  let validUntil = 0;
  let announced = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;

  // A monotonic clock, as the bucket leases use: a wall clock stepped forward or back (NTP) must not
  // stretch the lease past Redis's TTL (audit 2, N10).
  const now = opts.now ?? (() => performance.now());
  const held = () => !stopped && now() < validUntil;
  const announce = () => {
    const now = held();
    if (now === announced) return;
    announced = now;
    log.info({ holder: opts.holder, sender: now }, now ? 'this front sends the alerts now' : 'this front no longer sends alerts');
    opts.onChange(now);
  };

  const tryOnce = async () => {
    const sentAt = now();
    try {
      const got = (await take([key], [opts.holder, t.ttlMs])) === 1;
      if (stopped) return;
      validUntil = got ? sentAt + t.ttlMs - t.safetyMs : 0;
    } catch (err) {
      // Redis away: the lease runs out on its own (validUntil) and a front that still reaches Redis takes it.
      log.warn({ err }, 'could not renew or take the sender lease');
    }
    announce();
  };

  const tick = () => {
    round = tryOnce().finally(() => {
      if (!stopped) timer = setTimeout(tick, t.everyMs);
    });
  };
  // A lapse is noticed even while Redis does not answer.
  const watch = setInterval(announce, Math.min(1_000, t.everyMs));
  watch.unref();
  tick();

  return {
    held,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(watch);
      await round;
      const had = announced;
      announce();
      if (!had) return;
      try {
        await release([key], [opts.holder]);
      } catch (err) {
        log.warn({ err }, 'could not release the sender lease (it lapses on its own)');
      }
    },
  };
}
