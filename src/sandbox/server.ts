/**
 * The sandbox server: one node:http server on 127.0.0.1 that plays every host of the Data
 * Service under a base path (/auth, /dicts, /arbs-prematch … /valuebets-live).
 *
 * Order of checks on every request: route (404) and method (405); authentication (401);
 * revocation, service access and account (403); body (400); the limit (429, not counted as a
 * use); then faults (timeout, 500), so a faulted request has used its quota; then the answer,
 * which a malformed fault may cut short, after the configured latency.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { systemClock } from '../clock.js';
import { SERVICES, serviceSchema, type Service } from '../service/services.js';
import { Counters } from './counters.js';
import { dictionariesFor, isDictLang } from './dictionaries.js';
import { filterBodySchema, select, type FilterBody } from './filter.js';
import { errorOutcome, isJsonContentType, ok, parseJson, readBody, remoteAddress, type Outcome } from './http.js';
import { withHostile, HOSTILE_PREFIX } from './hostile.js';
import { createLimitSet, type SlidingWindowLimit } from './limits.js';
import { createRng } from './prng.js';
import { basePathOf, matchRoute, type Route } from './routes.js';
import type { Sandbox, SandboxFaults, SandboxKey, SandboxLimits, SandboxOptions, SandboxUrls, TokenGrant } from './types.js';
import type { WireEnvelope, WireEvent } from './wire.js';
import { toWireEvent, toWireItem } from './to-wire.js';
import { World } from './world.js';
import type { SimItem } from './world-model.js';
import { listen } from '../lib/listen.js';

/** The demo key pair used when no keys are given. */
export const DEMO_KEY: Readonly<SandboxKey> = Object.freeze({ accessKey: 'demo-key', secret: 'demo-secret-0123456789' });

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  tokensPerHour: 20,
  filtersPerHour: 20,
  itemsPerMinute: 30,
  dictsPerDay: 24,
  scope: 'key',
});

const DEFAULT_TOKEN_TTL_MS = 300_000;
/** The token log keeps at most this many grants (halved when full). */
const GRANT_LOG_CAP = 10_000;

interface TokenRecord {
  accessKey: string;
  service: Service;
  expiresAt: number;
}

const tokenBodySchema = z.object({ service: serviceSchema });

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Constant-time comparison of a presented secret with the configured one. */
function secretMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

function copyKey(k: SandboxKey): SandboxKey {
  return { ...k, ...(k.services ? { services: [...k.services] } : {}) };
}

/** Starts a sandbox; resolves once it listens. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const clock = opts.clock ?? systemClock;
  const seed = opts.seed ?? 1;
  const tokenTtlMs = opts.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS;
  const limitCfg: SandboxLimits = { ...DEFAULT_LIMITS, ...opts.limits };
  const limits = createLimitSet(limitCfg);
  const accountPrefix = opts.accountPrefix ?? 'both';
  const initialKeys = opts.keys && opts.keys.length > 0 ? opts.keys : [DEMO_KEY];
  const keys = new Map<string, SandboxKey>(initialKeys.map((k) => [k.accessKey, copyKey(k)]));
  const demoKey = copyKey(initialKeys[0] as SandboxKey);
  let faults: SandboxFaults = { ...opts.faults };
  const faultRng = createRng(seed, 'faults');
  const tokenRng = createRng(seed, 'tokens');
  const tokens = new Map<string, TokenRecord>();
  const filters = new Map<string, FilterBody>();
  const counters = new Counters();
  const world = new World({
    seed,
    startMs: clock.now(),
    eventsPerService: opts.world?.eventsPerService ?? 20,
    itemsPerService: opts.world?.itemsPerService ?? 12,
    meanLifetimeMs: opts.world?.meanLifetimeMs ?? 180_000,
    moveEveryMs: opts.world?.moveEveryMs ?? 20_000,
    ...(opts.world?.profile ? { profile: opts.world.profile } : {}),
  });
  const grants: TokenGrant[] = [];
  const held = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();

  /** How far the served clock is ahead of the sandbox's (the `clockSkewMs` fault). */
  const skew = (): number => faults.clockSkewMs ?? 0;

  const isRevoked = (accessKey: string): boolean => faults.revokedKeys?.includes(accessKey) ?? false;

  const accountMatches = (account: string, accessKey: string): boolean =>
    (accountPrefix !== '' && account === `bb-${accessKey}`) || (accountPrefix !== 'bb-' && account === accessKey);

  /** Takes one use of `limit` for `scope`, or the 429 answer (counted as a breach). */
  const takeLimit = (limit: SlidingWindowLimit, scope: string, route: string, now: number): Outcome | undefined => {
    const d = limit.take(scope, now);
    if (d.ok) return undefined;
    counters.breach(now, route, scope);
    const seconds = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
    return errorOutcome(
      429,
      `rate limit exceeded: ${limit.limit} requests per ${limit.windowMs / 1000} s; retry in ${seconds} s`,
      { 'Retry-After': String(seconds) },
      { retry_after: seconds },
    );
  };

  /** Timeout and server-error faults, drawn after the request has used its quota. */
  const drawFault = (withErrors: boolean): Outcome | undefined => {
    const timeoutRate = faults.timeoutRate ?? 0;
    if (timeoutRate > 0 && faultRng.next() < timeoutRate) return { hold: true };
    const errorRate = faults.errorRate ?? 0;
    if (withErrors && errorRate > 0 && faultRng.next() < errorRate) return errorOutcome(500, 'internal server error (injected fault)');
    return undefined;
  };

  const scopeOf = (who: string, address: string, scope = limitCfg.scope): string =>
    scope === 'address' ? `addr:${address}` : `key:${who}`;

  function tokenRoute(route: Extract<Route, { name: 'token' }>, req: IncomingMessage, body: string, address: string): Outcome {
    const key = keys.get(route.accessKey);
    const m = /^ApiKey\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!key || !m || !secretMatches(m[1] as string, key.secret)) {
      return errorOutcome(401, 'unknown access key or wrong secret key');
    }
    if (isRevoked(key.accessKey)) return errorOutcome(403, 'this access key has been revoked');
    if (!isJsonContentType(req.headers['content-type'])) return errorOutcome(400, 'Content-Type must be application/json');
    const parsed = parseJson(body);
    const valid = parsed && tokenBodySchema.safeParse(parsed.value);
    if (!valid || !valid.success) {
      return errorOutcome(400, `the body must be {"service": one of ${SERVICES.join(', ')}}`);
    }
    const service = valid.data.service;
    if (key.services && !key.services.includes(service)) {
      return errorOutcome(403, `this access key has no subscription for ${service}`);
    }
    const now = clock.now();
    const refused = takeLimit(limits.tokens, `tokens|${scopeOf(key.accessKey, address, limitCfg.tokenScope ?? limitCfg.scope)}`, 'token', now);
    if (refused) return refused;
    counters.use(key.accessKey, basePathOf(service), 'token');
    const fault = drawFault(false);
    if (fault) return fault;
    if (tokens.size > 10_000) for (const [t, rec] of tokens) if (rec.expiresAt <= now) tokens.delete(t);
    const token = tokenRng.hex(40);
    tokens.set(token, { accessKey: key.accessKey, service, expiresAt: now + tokenTtlMs });
    grants.push({ accessKey: key.accessKey, service, at: now, expiresAt: now + tokenTtlMs });
    if (grants.length > GRANT_LOG_CAP) grants.splice(0, grants.length - GRANT_LOG_CAP / 2);
    return ok({ access_token: token, token_type: 'Bearer', expires_in: Math.ceil(tokenTtlMs / 1000) });
  }

  function dictsRoute(route: Extract<Route, { name: 'dicts' }>, address: string): Outcome {
    const lang = route.lang ?? 'en';
    if (!isDictLang(lang)) return errorOutcome(404, `no dictionaries in language "${lang}"; available: en, ru`);
    const now = clock.now();
    const refused = takeLimit(limits.dicts, `dicts|addr:${address}`, 'dicts', now);
    if (refused) return refused;
    counters.use(address, '/dicts', 'dicts');
    return drawFault(true) ?? ok(dictionariesFor(lang));
  }

  function envelope(items: readonly SimItem[], masked: boolean, now: number): WireEnvelope {
    const events: WireEvent[] = [];
    const seen = new Set<string>();
    for (const it of items) {
      if (seen.has(it.event.id)) continue;
      seen.add(it.event.id);
      events.push(toWireEvent(it.event, items, skew()));
    }
    return {
      filtered: items.length,
      masked,
      timestamp: Math.floor((now + skew()) / 1000),
      items: items.map((it) => toWireItem(it, masked, skew())),
      events,
    };
  }

  type DataRoute = Extract<Route, { service: Service }>;

  function dataRoute(route: DataRoute, req: IncomingMessage, body: string, address: string): Outcome {
    const now = clock.now();
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const rec = m ? tokens.get(m[1] as string) : undefined;
    if (!rec || rec.expiresAt <= now) return errorOutcome(401, 'missing, unknown or expired access token');
    if (rec.service !== route.service) return errorOutcome(401, `the access token is not valid for ${route.service}`);
    const key = keys.get(rec.accessKey);
    if (!key) return errorOutcome(401, 'the access token belongs to no known key');
    if (isRevoked(key.accessKey)) return errorOutcome(403, 'this access key has been revoked');
    if (!accountMatches(route.account, key.accessKey)) return errorOutcome(403, 'the account in the path is not the token’s key');
    const base = basePathOf(route.service);
    const filterKey = `${key.accessKey}|${route.service}`;

    if (route.name === 'filter') {
      const parsed = parseJson(body);
      if (!parsed || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
        return errorOutcome(400, 'the filter body must be a JSON object');
      }
      const valid = filterBodySchema.safeParse(parsed.value);
      if (!valid.success) {
        const issue = valid.error.issues[0];
        return errorOutcome(400, `filter field "${issue?.path.join('.') ?? '?'}": ${issue?.message ?? 'invalid'}`);
      }
      const refused = takeLimit(limits.filters, `filters|${base}|${scopeOf(key.accessKey, address)}`, 'filter', now);
      if (refused) return refused;
      counters.use(key.accessKey, base, 'filter');
      const fault = drawFault(true);
      if (fault) return fault;
      filters.set(filterKey, valid.data);
      return ok({ ok: true, filter: valid.data });
    }

    const refused = takeLimit(limits.items, `items|${base}|${scopeOf(key.accessKey, address)}`, route.name, now);
    if (refused) return refused;
    counters.use(key.accessKey, base, 'items');
    counters.read(now, key.accessKey, base, address);
    const fault = drawFault(true);
    if (fault) return fault;
    const masked = key.masked === true;
    const filter = filters.get(filterKey);
    const hostile = (env: WireEnvelope, onlyId?: string): unknown => (opts.hostile ? withHostile(env, route.service, onlyId) : env);
    if (route.name === 'items') return ok(hostile(envelope(select(world.alive(route.service, now), filter, now), masked, now)));
    if (route.name === 'event_items') {
      const onEvent = world.alive(route.service, now).filter((it) => it.event.id === route.eventId);
      const env = envelope(select(onEvent, filter, now), masked, now);
      return ok(route.eventId.startsWith(HOSTILE_PREFIX) ? hostile(env) : env);
    }
    if (opts.hostile && route.itemId.startsWith(HOSTILE_PREFIX)) return ok(hostile(envelope([], masked, now), route.itemId));
    const item = world.item(route.service, route.itemId, now);
    if (!item) return errorOutcome(404, `no item with id "${route.itemId}" (it may have gone)`);
    return ok(envelope([item], masked, now));
  }

  function send(res: ServerResponse, outcome: Outcome): void {
    if ('hold' in outcome) {
      counters.status('timeout');
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    let text = JSON.stringify(outcome.body);
    const malformedRate = faults.malformedRate ?? 0;
    if (outcome.status === 200 && malformedRate > 0 && faultRng.next() < malformedRate) {
      // An unclosed object is never valid JSON.
      text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    }
    counters.status(outcome.status);
    const write = (): void => {
      if (res.destroyed || res.writableEnded) return;
      res.writeHead(outcome.status, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': String(Buffer.byteLength(text)),
        // On the sandbox's clock (a test's fake one), skewed as the fault says: the bot measures the skew from it.
        Date: new Date(clock.now() + skew()).toUTCString(),
        ...outcome.headers,
      });
      res.end(text);
    };
    const latency = faults.latencyMs ?? 0;
    if (latency <= 0) return write();
    const timer = setTimeout(() => {
      timers.delete(timer);
      write();
    }, latency);
    timers.add(timer);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = new URL(req.url ?? '/', 'http://sandbox').pathname;
    const route = matchRoute(pathname);
    counters.request(route.name);
    const body = await readBody(req);
    if (route.name === 'other') return send(res, errorOutcome(404, `no route ${req.method ?? ''} ${pathname}`));
    if (!route.methods.includes(req.method ?? '')) {
      return send(res, errorOutcome(405, `method ${req.method ?? ''} not allowed here`, { Allow: route.methods.join(', ') }));
    }
    if (body === undefined) return send(res, errorOutcome(413, 'request body too large'));
    const address = remoteAddress(req);
    if (route.name === 'token') return send(res, tokenRoute(route, req, body, address));
    if (route.name === 'dicts') return send(res, dictsRoute(route, address));
    return send(res, dataRoute(route, req, body, address));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, errorOutcome(500, 'internal error'));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;

  const port = await listen(server, opts.port ?? 0, '127.0.0.1');
  const origin = `http://127.0.0.1:${port}`;
  const urls: SandboxUrls = {
    BB_AUTH_URL: `${origin}/auth`,
    BB_DICTS_URL: `${origin}/dicts`,
    BB_ARBS_PREMATCH_URL: `${origin}${basePathOf('arbs_prematch')}`,
    BB_ARBS_LIVE_URL: `${origin}${basePathOf('arbs_live')}`,
    BB_MIDDLES_PREMATCH_URL: `${origin}${basePathOf('middles_prematch')}`,
    BB_MIDDLES_LIVE_URL: `${origin}${basePathOf('middles_live')}`,
    BB_VALUEBETS_PREMATCH_URL: `${origin}${basePathOf('valuebets_prematch')}`,
    BB_VALUEBETS_LIVE_URL: `${origin}${basePathOf('valuebets_live')}`,
  };

  let closing: Promise<void> | undefined;

  return {
    port,
    origin,
    urls,
    demoKey,
    counters: () => counters.snapshot(),
    tokenGrants: () => grants.map((g) => ({ ...g })),
    resetCounters: () => counters.reset(),
    setFaults: (f) => {
      faults = { ...f, ...(f.revokedKeys ? { revokedKeys: [...f.revokedKeys] } : {}) };
    },
    addKey: (k) => {
      keys.set(k.accessKey, copyKey(k));
    },
    currentItems: (service) => world.alive(service, clock.now()).map((it) => toWireItem(it, false, skew())),
    currentEnvelope: (service) => {
      const now = clock.now();
      return envelope(world.alive(service, now), false, now);
    },
    world: {
      step: () => world.advanceAll(clock.now()),
      appearedAt: (id) => world.appearedAt(id),
      inject: (service, o) => toWireItem(world.inject(service, clock.now(), o), false, skew()),
      changes: (sinceMs, service) => {
        world.advanceAll(clock.now());
        return world.changes(sinceMs, service);
      },
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        for (const res of held) res.destroy();
        held.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
