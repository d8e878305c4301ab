/**
 * The token cache of a bot that runs as several processes (issue 13): one token per (access key,
 * service) for all of them, kept in Redis, so the token limit is spent once whichever process
 * needs the token. Implements `TokenCache` (src/service/tokens.ts); the in-process `TokenManager`
 * stays the embedded cache and, here, makes the actual request for the process holding the lock.
 *
 * - Grants are stored encrypted (AES-256-GCM, a key derived from ENCRYPTION_KEY by the vault's
 *   HKDF, the Redis key as associated data so a blob cannot be moved to another key or service),
 *   beside its renewal time on Redis's clock (the one clock all processes agree on), and with PX
 *   until then: Redis drops a grant when it is due for renewal. A reader takes the time left
 *   from Redis and counts it on its own clock, so skewed clocks agree.
 * - Single flight across processes: a lock (SET NX PX, renewed while the request runs, released
 *   by compare-and-delete) per (key, service). A process that finds it taken polls the grant and
 *   the lock with the same script: the grant appears, or the lock is freed or lapses (its holder
 *   failed or died) and the poller takes it.
 * - `refused` deletes the grant only if it is still the refused one (compare-and-delete of the
 *   stored value); `forget` deletes the key's grants and bumps a generation, so a request in flight
 *   elsewhere does not store a grant of a forgotten key.
 * - Each process keeps a mirror of the grants it used (`valid` and `expiresInMs` stay synchronous).
 * Redis unavailable: calls fail as ServiceError 'timeout' (transient, nothing sent).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, type KeyObject } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { systemClock, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { AccessKeyRef, RequestOptions } from '../service/client-types.js';
import { ServiceError } from '../service/errors.js';
import { SERVICES, type Service } from '../service/services.js';
import { withSignal, type TokenCache, type TokenGrant, type TokenManager } from '../service/tokens.js';
import { bounded, defineScript, offsetArg, REDIS_CALL_TIMEOUT_MS, REDIS_NOW_LUA, type ScriptCall } from './redis-calls.js';

/** The purpose `Vault.deriveKey` is asked for: the key the shared grants are encrypted with. */
export const TOKEN_KEY_PURPOSE = 'cluster-token-cache';
/** Lock lifetime without renewal: how long others wait for a holder that died. */
export const TOKEN_LOCK_TTL_MS = 10_000;
/** How often a process waiting for another's token request looks again. */
export const TOKEN_POLL_MS = 100;
/** A caller that does not wait for limits waits at most this long for another process's request. */
export const TOKEN_BUSY_WAIT_MS = 5_000;

/**
 * KEYS grant, lock, generation; ARGV offset, owner, lockTtlMs, force (1: ignore a stored grant).
 * A grant is stored as `<renewAt on Redis's clock>|<sealed blob>`.
 * → {'grant', value, ms until renewal, gen} | {'locked', '', 0, gen} | {'busy', '', lock's pttl, gen}
 */
const TAKE = `${REDIS_NOW_LUA}
local gen = redis.call('GET', KEYS[3]) or '0'
if ARGV[4] == '0' then
  local value = redis.call('GET', KEYS[1])
  if value then
    local sep = string.find(value, '|', 1, true)
    local renewAt = sep and tonumber(string.sub(value, 1, sep - 1))
    if renewAt and renewAt > now then return {'grant', value, renewAt - now, gen} end
  end
end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then return {'locked', '', 0, gen} end
return {'busy', '', redis.call('PTTL', KEYS[2]), gen}
`;
/**
 * KEYS grant, lock, generation; ARGV offset, owner, blob, ms until renewal, gen → the stored value,
 * or '' when the key was forgotten meanwhile (not stored). The lock goes either way.
 */
const STORE = `${REDIS_NOW_LUA}
local value = ''
if (redis.call('GET', KEYS[3]) or '0') == ARGV[5] then
  value = string.format('%d', now + tonumber(ARGV[4])) .. '|' .. ARGV[3]
  redis.call('SET', KEYS[1], value, 'PX', ARGV[4])
end
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return value
`;
/** KEYS lock; ARGV owner → 1 when deleted (still ours). */
const UNLOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** KEYS lock; ARGV owner, ttlMs → 1 when extended (still ours). */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
/** KEYS grant; ARGV value → 1 when deleted (it was still that grant). */
const DROP = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** KEYS generation, then the grants of every service → the new generation. */
const FORGET = `
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
return redis.call('INCR', KEYS[1])
`;

const takeReply = z.union([
  z.tuple([z.literal('grant'), z.string().min(1), z.number().int().positive(), z.string()]),
  z.tuple([z.enum(['locked', 'busy']), z.string(), z.number().int(), z.string()]),
]);
const sealedGrant = z.object({ token: z.string().min(1), lifetimeMs: z.number().int().positive(), marginMs: z.number().int().nonnegative() });

export interface SharedTokenCacheOptions {
  redis: Redis;
  /** REDIS_PREFIX. */
  prefix: string;
  /** `vault.deriveKey(TOKEN_KEY_PURPOSE)`: never stored anywhere. */
  key: KeyObject;
  /** The in-process cache that makes the requests. */
  manager: TokenManager;
  clock: Clock;
  logger: Logger;
  /** The client's shutdown: ends waits for another process's request. */
  shutdown?: AbortSignal;
  lockTtlMs?: number;
  pollMs?: number;
  busyWaitMs?: number;
  redisTimeoutMs?: number;
  /** Tests only: added to Redis's clock in the scripts (as in the limit windows). */
  clockOffsetMs?: number | (() => number);
}

/** One (key, service)'s keys in Redis; the hash tag keeps them in one slot of a Redis Cluster. */
interface Slot {
  grant: string;
  lock: string;
  generation: string;
}

interface Held {
  grant: TokenGrant;
  /** The value in Redis this grant came from or went to: what `refused` compares before deleting. */
  value: string | undefined;
}

interface Flow {
  promise: Promise<TokenGrant>;
}

/** The shared token cache (see the file comment). */
export class SharedTokenCache implements TokenCache {
  private readonly held = new Map<string, Held>();
  private readonly flows = new Map<string, Flow>();
  private readonly generations = new Map<string, number>();
  private readonly take: ScriptCall;
  private readonly store: ScriptCall;
  private readonly unlock: ScriptCall;
  private readonly renew: ScriptCall;
  private readonly drop: ScriptCall;
  private readonly forgetScript: ScriptCall;
  /** This process among the others (random); its flows are numbered after it. */
  private readonly processTag = randomBytes(9).toString('base64url');
  private flowCount = 0;
  private readonly log: Logger;

  constructor(private readonly opts: SharedTokenCacheOptions) {
    const { redis } = opts;
    this.take = defineScript(redis, 'bbTokenTake', 3, TAKE);
    this.store = defineScript(redis, 'bbTokenStore', 3, STORE);
    this.unlock = defineScript(redis, 'bbTokenUnlock', 1, UNLOCK);
    this.renew = defineScript(redis, 'bbTokenRenew', 1, RENEW);
    this.drop = defineScript(redis, 'bbTokenDrop', 1, DROP);
    this.forgetScript = defineScript(redis, 'bbTokenForget', 1 + SERVICES.length, FORGET);
    this.log = opts.logger.child({ module: 'shared-tokens' });
  }

  valid(accessKey: string, service: Service): TokenGrant | undefined {
    const held = this.held.get(slotId(accessKey, service));
    return held && this.opts.clock.now() < held.grant.renewAt ? held.grant : undefined;
  }

  expiresInMs(accessKey: string, service: Service): number {
    const held = this.held.get(slotId(accessKey, service));
    return held ? Math.max(0, held.grant.expiresAt - this.opts.clock.now()) : 0;
  }

  async token(key: AccessKeyRef, service: Service, opts: RequestOptions = {}): Promise<string> {
    const grant = this.valid(key.accessKey, service) ?? (await this.obtain(key, service, opts, false));
    return grant.token;
  }

  request(key: AccessKeyRef, service: Service, opts: RequestOptions = {}): Promise<TokenGrant> {
    return this.obtain(key, service, opts, true);
  }

  refused(accessKey: string, service: Service, token: string): void {
    this.opts.manager.refused(accessKey, service, token);
    const id = slotId(accessKey, service);
    const held = this.held.get(id);
    if (held?.grant.token !== token) return;
    this.held.delete(id);
    if (held.value) this.background('drop a refused token', this.drop([this.slot(accessKey, service).grant], [held.value]));
  }

  forget(accessKey: string): void {
    this.opts.manager.forget(accessKey);
    for (const service of SERVICES) this.held.delete(slotId(accessKey, service));
    this.generations.set(accessKey, (this.generations.get(accessKey) ?? 0) + 1);
    const slots = SERVICES.map((service) => this.slot(accessKey, service));
    this.background('forget a key', this.forgetScript([slots[0]!.generation, ...slots.map((s) => s.grant)], []));
  }

  /** One flow per (key, service, kind of caller) in this process; forced ones are joined only by callers happy with a fresh token. */
  private obtain(key: AccessKeyRef, service: Service, opts: RequestOptions, force: boolean): Promise<TokenGrant> {
    const generation = this.generations.get(key.accessKey) ?? 0;
    const base = `${slotId(key.accessKey, service)}\n${generation}\n${opts.wait === false ? 'now' : 'wait'}`;
    const existing = this.flows.get(`${base}\nforce`) ?? (force ? undefined : this.flows.get(`${base}\ncached`));
    if (existing) return withSignal(existing.promise, opts.signal);
    const id = `${base}\n${force ? 'force' : 'cached'}`;
    const { signal: _own, ...common } = opts;
    const shared = this.opts.shutdown ? { ...common, signal: this.opts.shutdown } : common;
    const flow: Flow = {
      promise: this.run(key, service, shared, force, generation).finally(() => {
        if (this.flows.get(id) === flow) this.flows.delete(id);
      }),
    };
    this.flows.set(id, flow);
    return withSignal(flow.promise, opts.signal);
  }

  /** Takes the grant from Redis, or the lock and then makes the request, or waits for whoever holds it. */
  private async run(key: AccessKeyRef, service: Service, opts: RequestOptions, force: boolean, generation: number): Promise<TokenGrant> {
    const slot = this.slot(key.accessKey, service);
    // Real time, as the lock's own lifetime.
    const busyUntil = opts.wait === false ? systemClock.now() + (opts.maxWaitMs ?? this.opts.busyWaitMs ?? TOKEN_BUSY_WAIT_MS) : Infinity;
    const lockTtl = this.opts.lockTtlMs ?? TOKEN_LOCK_TTL_MS;
    // The lock's owner is this flow, not the process: a lock left by an earlier flow is not this one's.
    this.flowCount += 1;
    const owner = `${this.processTag}:${this.flowCount.toString(36)}`;
    for (;;) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const offset = offsetArg(this.opts.clockOffsetMs);
      const take = this.take([slot.grant, slot.lock, slot.generation], [offset, owner, lockTtl, force ? 1 : 0]);
      let reply: z.infer<typeof takeReply>;
      try {
        reply = takeReply.parse(await this.call('the shared token cache', take, opts.signal));
      } catch (err) {
        // Redis may still run it (a command queued while it was away): a lock taken then is freed.
        take.then((late) => (Array.isArray(late) && late[0] === 'locked' ? this.unlock([slot.lock], [owner]) : undefined)).catch(() => undefined);
        throw err;
      }
      const [state, value, ms, redisGeneration] = reply;
      if (state === 'grant') {
        const grant = this.open(slot, value, ms);
        if (grant) return this.keep(key.accessKey, service, generation, { grant, value });
        // Sealed with another key (a process with another ENCRYPTION_KEY): request a new one.
        force = true;
        continue;
      }
      if (state === 'locked') return this.requestHolding(key, service, opts, { slot, owner, redisGeneration, generation });
      if (systemClock.now() >= busyUntil) {
        throw new ServiceError('rate_limited', `${service} token request: another process of the bot is requesting this token (nothing was sent)`, {
          local: true,
          retryAfterMs: Math.max(this.opts.pollMs ?? TOKEN_POLL_MS, ms),
          limit: 'tokens',
        });
      }
      // Real time: the lock lapses on Redis's clock, not on the injected one.
      await systemClock.sleep(this.opts.pollMs ?? TOKEN_POLL_MS, opts.signal);
    }
  }

  /** Holding the lock: one request through the in-process manager, the grant stored sealed, the lock freed. */
  private async requestHolding(
    key: AccessKeyRef,
    service: Service,
    opts: RequestOptions,
    { slot, owner, redisGeneration, generation }: { slot: Slot; owner: string; redisGeneration: string; generation: number },
  ): Promise<TokenGrant> {
    const lockTtl = this.opts.lockTtlMs ?? TOKEN_LOCK_TTL_MS;
    // The request may wait for its limit longer than the lock lives: keep it while this runs.
    const renewal = setInterval(() => {
      this.background('renew the token lock', this.renew([slot.lock], [owner, lockTtl]));
    }, Math.max(50, Math.floor(lockTtl / 3)));
    renewal.unref();
    let grant: TokenGrant;
    try {
      grant = await this.opts.manager.request(key, service, opts);
    } catch (err) {
      clearInterval(renewal);
      this.background('free the token lock', this.unlock([slot.lock], [owner]));
      throw err;
    }
    clearInterval(renewal);
    const renewInMs = Math.round(grant.renewAt - this.opts.clock.now());
    let value: string | undefined;
    try {
      if (renewInMs > 0) {
        const args = [offsetArg(this.opts.clockOffsetMs), owner, this.seal(slot, grant), renewInMs, redisGeneration];
        value = z.string().parse(await this.call('the shared token cache', this.store([slot.grant, slot.lock, slot.generation], args), undefined)) || undefined;
      } else {
        // Already due for renewal: used once here, not shared; the lock goes anyway.
        await this.call('the shared token cache', this.unlock([slot.lock], [owner]), undefined);
      }
    } catch (err) {
      // The token is good: this process uses it; the others request their own once the lock lapses.
      this.log.warn({ err, service }, 'could not share a new token in Redis');
    }
    return this.keep(key.accessKey, service, generation, { grant, value });
  }

  /** Mirrors the grant locally unless the key was forgotten meanwhile. */
  private keep(accessKey: string, service: Service, generation: number, held: Held): TokenGrant {
    if ((this.generations.get(accessKey) ?? 0) === generation) this.held.set(slotId(accessKey, service), held);
    return held.grant;
  }

  private seal(slot: Slot, grant: TokenGrant): string {
    const plain = JSON.stringify({
      token: grant.token,
      lifetimeMs: Math.max(1, Math.round(grant.expiresAt - grant.receivedAt)),
      marginMs: Math.max(0, Math.round(grant.expiresAt - grant.renewAt)),
    });
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.opts.key, iv, { authTagLength: 16 });
    cipher.setAAD(aadOf(slot));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['t1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(':');
  }

  /** The grant in a stored `value`, due for renewal in `renewInMs`; undefined when it cannot be opened. */
  private open(slot: Slot, value: string, renewInMs: number): TokenGrant | undefined {
    const [version, iv, tag, ct] = value.slice(value.indexOf('|') + 1).split(':');
    if (version !== 't1' || !iv || !tag || ct === undefined) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.opts.key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
      decipher.setAAD(aadOf(slot));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
      const sealed = sealedGrant.parse(JSON.parse(plain));
      const renewAt = this.opts.clock.now() + renewInMs;
      const expiresAt = renewAt + sealed.marginMs;
      return { token: sealed.token, receivedAt: expiresAt - sealed.lifetimeMs, expiresAt, renewAt };
    } catch {
      this.log.warn('a shared token could not be opened (another ENCRYPTION_KEY, or altered): requesting a new one');
      return undefined;
    }
  }

  private slot(accessKey: string, service: Service): Slot {
    // A digest: access keys stay out of key names; the braces are the Redis Cluster hash tag.
    const tag = `{${createHash('sha256').update(accessKey).digest('hex').slice(0, 24)}}`;
    const grant = `${this.opts.prefix}token:${tag}:${service}`;
    return { grant, lock: `${grant}:lock`, generation: `${this.opts.prefix}token:${tag}:generation` };
  }

  private call<T>(what: string, call: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    return bounded(call, { what, timeoutMs: this.opts.redisTimeoutMs ?? REDIS_CALL_TIMEOUT_MS, ...(signal ? { signal } : {}) });
  }

  /** Redis work nobody waits for; a failure is logged (the next caller finds the state as it is). */
  private background(what: string, call: Promise<unknown>): void {
    this.call(what, call, undefined).catch((err: unknown) => this.log.warn({ err }, `could not ${what} in Redis`));
  }
}

function slotId(accessKey: string, service: Service): string {
  return `${accessKey}\n${service}`;
}

/** The blob is bound to its Redis key: moved to another key or service, it does not open. */
function aadOf(slot: Slot): Buffer {
  return Buffer.from(`bb-alert-bot:token:t1|${slot.grant}`);
}
