/**
 * Access tokens (seed §4.1, §5): requested within the token limit, cached per (access key,
 * service), renewed shortly before expiry, and dropped after a 401 so the next call renews once.
 * Concurrent callers of one (key, service) share one in-flight request. The secret is revealed
 * only into the token request's Authorization header; tokens are never logged.
 */
import { z } from 'zod';
import type { Dispatcher } from 'undici';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AccessKeyRef, RequestOptions } from './client-types.js';
import { ServiceError } from './errors.js';
import { sendRequest, type HttpResponse } from './http.js';
import type { Limits } from './limits.js';
import { parseServiceTime } from './parse-items.js';
import { tokenEndpoint, type PathConfig } from './paths.js';
import type { Service } from './services.js';

/** The seed's token lifetime, assumed when the answer does not say. */
export const DEFAULT_TOKEN_TTL_MS = 5 * 60_000;
/**
 * Renew this long before expiry (a quarter of the lifetime for very short-lived tokens). Short,
 * because polling stops using a token here and every second of it is a second its service is
 * dark until the plan's next token (20 s left 7 % of each token unused); it need only cover a
 * request's way to the service (the expiry is counted from when the answer arrived, by
 * `expires_in` where given, so clock skew does not enter).
 */
export const TOKEN_RENEW_MARGIN_MS = 5_000;
/** Expiries further out than this are not believed. */
const MAX_TOKEN_TTL_MS = 24 * 3_600_000;

/**
 * How the access token travels on Data API calls. Undocumented; the service's own web app sends
 * a Bearer header. This is the one place to change it.
 */
export function dataAuthHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A token as held: the token and when it was received, expires and gets renewed (ms). */
export interface TokenGrant {
  token: string;
  receivedAt: number;
  expiresAt: number;
  /** From here on the token is renewed instead of used. */
  renewAt: number;
}

const tokenText = z
  .string()
  .trim()
  .min(1)
  .max(8192)
  .regex(/^[^\s"]+$/);
const numeric = z.union([z.number(), z.string().trim().regex(/^\d+(\.\d+)?$/).transform(Number)]);
const grantSchema = z
  .object({
    token: tokenText.nullish(),
    access_token: tokenText.nullish(),
    expires_at: z.union([z.number(), z.string()]).nullish(),
    expires_in: numeric.nullish(),
  })
  .loose();

/**
 * Reads the undocumented token answer: `token` / `access_token` (also inside `data`), or a bare
 * JSON string (or plain text). Expiry from `expires_in` (immune to clock skew), `expires_at`
 * (unix seconds or ISO), or the token's JWT `exp` claim; else the seed's 5 minutes.
 */
export function parseTokenResponse(res: HttpResponse, now: number, what: string): TokenGrant {
  const body = res.body;
  const bare = tokenText.safeParse(body);
  if (bare.success) return grantFor(bare.data, now, []);

  const nested = body && typeof body === 'object' && 'data' in body ? (body as { data: unknown }).data : undefined;
  for (const candidate of [body, nested]) {
    const parsed = grantSchema.safeParse(candidate);
    if (!parsed.success) continue;
    const token = parsed.data.token ?? parsed.data.access_token;
    if (!token) continue;
    const expiries = [
      parsed.data.expires_in != null ? now + parsed.data.expires_in * 1000 : undefined,
      parseServiceTime(parsed.data.expires_at),
    ];
    return grantFor(token, now, expiries);
  }
  throw new ServiceError('malformed', `${what}: the answer held no token`, { status: res.status });
}

function grantFor(token: string, now: number, expiries: (number | undefined)[]): TokenGrant {
  const plausible = (at: number | undefined): at is number => at !== undefined && at > now && at <= now + MAX_TOKEN_TTL_MS;
  const expiresAt = [...expiries, jwtExpiry(token)].find(plausible) ?? now + DEFAULT_TOKEN_TTL_MS;
  const margin = Math.min(TOKEN_RENEW_MARGIN_MS, (expiresAt - now) / 4);
  return { token, receivedAt: now, expiresAt, renewAt: expiresAt - margin };
}

/** The `exp` claim (seconds) of a JWT, read without verifying: only to know when to renew. */
export function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    const exp = claims && typeof claims === 'object' ? (claims as { exp?: unknown }).exp : undefined;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** A short tag of an access key for logs: enough to tell users apart, not the whole key. */
export function keyTag(accessKey: string): string {
  return accessKey.length <= 4 ? '…' : `${accessKey.slice(0, 4)}…`;
}

/** What the token manager needs. */
export interface TokenManagerOptions {
  config: PathConfig & Pick<Config, 'BB_REQUEST_TIMEOUT_MS'>;
  limits: Limits;
  clock: Clock;
  logger: Logger;
  dispatcher?: Dispatcher;
  /** The client's shutdown: aborts shared requests that no single caller owns. */
  shutdown?: AbortSignal;
}

/**
 * The token cache as the client uses it: tokens per (access key, service), renewed on time, one
 * request shared by concurrent callers. `TokenManager` below is the in-process implementation; a
 * cache shared by several processes (Redis) would implement the same interface, so that one
 * key's token serves every process and the token limit is spent once.
 */
export interface TokenCache {
  /** The cached grant when it is still good to use now. */
  valid(accessKey: string, service: Service): TokenGrant | undefined;
  /** ms until the held token expires; 0 when none is held. */
  expiresInMs(accessKey: string, service: Service): number;
  /** A token good to use now: the cached one, or one new request shared by concurrent callers. */
  token(key: AccessKeyRef, service: Service, opts?: RequestOptions): Promise<string>;
  /** One token request even when a token is held (checking a key pair); joins one in flight. */
  request(key: AccessKeyRef, service: Service, opts?: RequestOptions): Promise<TokenGrant>;
  /** The service refused `token` (401): drop it, unless a newer one has replaced it already. */
  refused(accessKey: string, service: Service, token: string): void;
  /** Drops the key's tokens; requests in flight for it will not be cached. */
  forget(accessKey: string): void;
}

/** The in-process token cache of the client: per (access key, service), renewed on time, requests shared. */
export class TokenManager implements TokenCache {
  private readonly grants = new Map<string, TokenGrant>();
  private readonly pending = new Map<string, Promise<TokenGrant>>();
  /** Bumped by `forget`: answers to requests sent before it are not cached. */
  private readonly generations = new Map<string, number>();

  constructor(private readonly opts: TokenManagerOptions) {}

  /** The cached grant when it is still good to use now. */
  valid(accessKey: string, service: Service): TokenGrant | undefined {
    const grant = this.grants.get(slot(accessKey, service));
    return grant && this.opts.clock.now() < grant.renewAt ? grant : undefined;
  }

  /** ms until the held token expires; 0 when none is held. */
  expiresInMs(accessKey: string, service: Service): number {
    const grant = this.grants.get(slot(accessKey, service));
    return grant ? Math.max(0, grant.expiresAt - this.opts.clock.now()) : 0;
  }

  /** A token good to use now: the cached one, or one new request shared by concurrent callers. */
  async token(key: AccessKeyRef, service: Service, opts: RequestOptions = {}): Promise<string> {
    const grant = this.valid(key.accessKey, service) ?? (await this.obtain(key, service, opts, false));
    return grant.token;
  }

  /** One token request even when a token is held (checking a key pair); joins one in flight. */
  request(key: AccessKeyRef, service: Service, opts: RequestOptions = {}): Promise<TokenGrant> {
    return this.obtain(key, service, opts, true);
  }

  /** The service refused `token` (401): drop it, unless a newer one has replaced it already. */
  refused(accessKey: string, service: Service, token: string): void {
    const id = slot(accessKey, service);
    if (this.grants.get(id)?.token === token) this.grants.delete(id);
  }

  /** Drops the key's tokens; requests in flight for it will not be cached. */
  forget(accessKey: string): void {
    for (const id of [...this.grants.keys()]) if (id.startsWith(`${accessKey}\n`)) this.grants.delete(id);
    this.generations.set(accessKey, (this.generations.get(accessKey) ?? 0) + 1);
  }

  private obtain(key: AccessKeyRef, service: Service, opts: RequestOptions, force: boolean): Promise<TokenGrant> {
    // Waiting and non-waiting callers share only among themselves: one must not inherit the other's refusal.
    const generation = this.generations.get(key.accessKey) ?? 0;
    const id = `${slot(key.accessKey, service)}\n${generation}\n${opts.wait === false ? 'now' : 'wait'}`;
    let shared = this.pending.get(id);
    if (!shared) {
      const { signal: _own, ...common } = opts;
      const shutdown = this.opts.shutdown;
      shared = this.fetch(key, service, shutdown ? { ...common, signal: shutdown } : common, force).finally(() => {
        if (this.pending.get(id) === shared) this.pending.delete(id);
      });
      this.pending.set(id, shared);
    }
    return withSignal(shared, opts.signal);
  }

  private async fetch(key: AccessKeyRef, service: Service, opts: RequestOptions, force: boolean): Promise<TokenGrant> {
    const { config, limits, clock, logger } = this.opts;
    const scope = { kind: 'tokens', accessKey: key.accessKey } as const;
    const generation = this.generations.get(key.accessKey) ?? 0;
    const permit = await limits.acquire(scope, opts);
    if (!force) {
      // While this waited for the limit, a caller of the other kind may have got one.
      const fresh = this.valid(key.accessKey, service);
      if (fresh) {
        permit.cancel();
        return fresh;
      }
    }
    const what = `${service} token request`;
    const endpoint = tokenEndpoint(config, key.accessKey);
    let res: HttpResponse;
    try {
      res = await sendRequest({
        ...endpoint,
        headers: { authorization: `ApiKey ${key.revealSecret()}` },
        json: { service },
        what,
        timeoutMs: config.BB_REQUEST_TIMEOUT_MS,
        now: () => clock.now(),
        ...(this.opts.dispatcher ? { dispatcher: this.opts.dispatcher } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      limits.recover(scope);
    } catch (err) {
      throw limits.failed(scope, err);
    } finally {
      permit.release();
    }
    const grant = parseTokenResponse(res, clock.now(), what);
    if ((this.generations.get(key.accessKey) ?? 0) === generation) {
      this.grants.set(slot(key.accessKey, service), grant);
    }
    logger.debug({ service, key: keyTag(key.accessKey), expiresInMs: grant.expiresAt - grant.receivedAt }, 'token obtained');
    return grant;
  }
}

function slot(accessKey: string, service: Service): string {
  return `${accessKey}\n${service}`;
}

/** `promise`, or the signal's reason as soon as it aborts (the shared work goes on for others). */
export function withSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}
