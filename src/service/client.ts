/**
 * The Data Service client: `ServiceClient` over undici, with every request inside the limits,
 * tokens renewed on time (and once after a 401), transient failures retried with jittered
 * backoff, and answers parsed into the bot's typed models.
 */
import { setMaxListeners } from 'node:events';
import type { Agent, Dispatcher } from 'undici';
import { AbortGroup } from './abort.js';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AccessKeyRef, BudgetView, RequestOptions, ServiceClient } from './client-types.js';
import { DictionaryCache } from './dictionaries.js';
import { ServiceError, isServiceError, type ServiceErrorKind } from './errors.js';
import { toFilterBody } from './filter-body.js';
import { filterSettingsSchema, type FilterSettings } from './filter-model.js';
import { createServiceClock } from './service-clock.js';
import { createServiceAgent, parseJsonBody, requireJson, sendRequestText, type HttpRequest, type HttpTextResponse } from './http.js';
import { ClientClosedError, createLimits, type LimitScope, type Limits, type Permit } from './limits.js';
import type { ItemRejectReason, ItemsRead, Opportunity } from './opportunity.js';
import { createItemsBodyMemo, createItemsParseCache, parseItemBody, parseItemsAnswer } from './parse-items.js';
import { eventItemsEndpoint, filterEndpoint, itemEndpoint, itemsEndpoint, type Endpoint, type PathConfig } from './paths.js';
import { withRetries } from './retry.js';
import { kindOf, type Service } from './services.js';
import { TokenManager, dataAuthHeaders, keyTag, type TokenCache } from './tokens.js';

/** What `createServiceClient` needs. */
export interface ServiceClientOptions {
  config: PathConfig &
    Pick<Config, 'BB_REQUEST_TIMEOUT_MS' | 'LIMIT_TOKENS_PER_HOUR' | 'LIMIT_FILTERS_PER_HOUR' | 'LIMIT_ITEMS_PER_MINUTE' | 'LIMIT_DICTS_PER_DAY' | 'LIMIT_SCOPE' | 'DATA_DIR'> &
    Partial<Pick<Config, 'LIMIT_SCOPE_TOKENS' | 'BB_LOCAL_ADDRESS'>>;
  logger: Logger;
  /** Default systemClock. Limit windows, token expiry, backoff and pauses follow it. */
  clock?: Clock;
  /** Jitter source; default Math.random. */
  random?: () => number;
  /** undici dispatcher; by default the client keeps its own Agent and closes it in `close()`. */
  dispatcher?: Dispatcher;
  /** Transient retries per call; default 2. */
  retries?: number;
  /** Decorates the in-process limits (the cluster's shared windows: src/cluster/shared-limits.ts). */
  limits?: (local: Limits) => Limits;
  /**
   * Builds the token cache around the in-process one, which still makes the requests (the
   * cluster's shared cache: src/cluster/shared-tokens.ts). `shutdown` aborts with `close()`.
   */
  tokens?: (manager: TokenManager, ctx: { shutdown: AbortSignal }) => TokenCache;
}

/** Counts of Data API calls since start, for /metrics and /stats. */
export interface ClientStats {
  /** Data API requests sent (filter writes and item reads; token requests not included). */
  requests: number;
  /** Failed Data API requests by error kind (a 429 from the service counts under rate_limited). */
  failures: Record<ServiceErrorKind, number>;
  /** Items of list reads kept out as unusable, by reason (counted on every read that met them). */
  rejectedItems: Partial<Record<ItemRejectReason, number>>;
}

/** The client plus its limits, which the scheduler reads to plan its polls. */
export type ServiceClientWithLimits = ServiceClient & { limits: Limits; stats(): ClientStats };

/** Poll endpoints remembered at most (see `pollEndpoint`). */
const MAX_POLL_ENDPOINTS = 20_000;

/** An endpoint's memo key: one key's poll of one service. */
const endpointKey = (endpoint: Endpoint): string => `${endpoint.method} ${endpoint.url}`;

/** How often a data call looks for a token and a slot that are both good at once. */
const TOKEN_SLOT_TRIES = 3;

/**
 * Creates the client. Requests go out only through its limits; `close()` ends waiting and
 * in-flight calls with `ClientClosedError` and closes its own connections.
 */
export function createServiceClient(opts: ServiceClientOptions): ServiceClientWithLimits {
  const { config } = opts;
  const clock = opts.clock ?? systemClock;
  const random = opts.random ?? Math.random;
  const retries = opts.retries ?? 2;
  const logger = opts.logger.child({ module: 'service-client' });
  const ownAgent = opts.dispatcher ? undefined : createServiceAgent({ localAddress: config.BB_LOCAL_ADDRESS });
  const dispatcher: Dispatcher = opts.dispatcher ?? (ownAgent as Agent);

  const now = () => clock.now();
  // The service's clock against ours, from its answers' Date headers: the legs' ages are read on it.
  const serviceClock = createServiceClock();
  const local = createLimits({ config, clock, random });
  const limits = opts.limits ? opts.limits(local) : local;
  const counts: ClientStats = {
    requests: 0,
    failures: { auth: 0, forbidden: 0, rate_limited: 0, not_found: 0, server: 0, timeout: 0, malformed: 0 },
    rejectedItems: {},
  };
  // A bad item comes back on every poll: it is logged the first time per service and reason, then only counted.
  const rejectLogged = new Set<string>();
  let closing: Promise<void> | undefined;
  // Aborted by close(): shared work no single caller owns (token fetches, dictionary refreshes).
  const shutdown = new AbortController();
  // Shared token fetches listen on it while they run; many at once at start-up are normal.
  setMaxListeners(0, shutdown.signal);
  // Aborted by close() too: every public call's waits, backoffs and requests in progress.
  const calls = new AbortGroup();
  const manager = new TokenManager({ config, limits, clock, logger, dispatcher, shutdown: shutdown.signal });
  const tokens: TokenCache = opts.tokens ? opts.tokens(manager, { shutdown: shutdown.signal }) : manager;
  const dictionaries = new DictionaryCache({
    config,
    limits,
    clock,
    logger,
    random,
    retries,
    dispatcher,
    shutdown: shutdown.signal,
  });

  /**
   * Runs one public call: the caller's signal joined with the client's close, and transient
   * failures retried (each try a whole new attempt through the limiters).
   */
  async function call<T>(what: string, options: RequestOptions = {}, attempt: (request: RequestOptions) => Promise<T>): Promise<T> {
    const link = calls.join(options.signal);
    const request: RequestOptions = { ...options, signal: link.signal };
    try {
      // Background polls are not tried again here: the scheduler backs off per subscription and
      // a retry would hold the poll's turn meanwhile. With no retry, withRetries would only rethrow:
      // a poll goes straight to its attempt, one async layer fewer on every read.
      if (options.priority === 'poll') return await attempt(request);
      return await withRetries(
        {
          retries,
          clock,
          random,
          logger,
          what,
          ...optional('wait', request.wait),
          signal: link.signal,
        },
        () => attempt(request),
      );
    } finally {
      link.dispose();
    }
  }

  /** A token good now and a slot in `scope`, taken so that no slot is held while waiting for a token. */
  async function tokenAndSlot(
    key: AccessKeyRef,
    service: Service,
    scope: LimitScope,
    request: RequestOptions,
  ): Promise<{ token: string; permit: Permit }> {
    for (let attempt = 1; ; attempt++) {
      // A token held and good is what `token()` would give: no wait for its promise on every read.
      if (!tokens.valid(key.accessKey, service)) await tokens.token(key, service, request);
      const permit = await limits.acquire(scope, request);
      const grant = tokens.valid(key.accessKey, service);
      if (grant) return { token: grant.token, permit };
      if (attempt >= TOKEN_SLOT_TRIES) {
        try {
          return { token: await tokens.token(key, service, request), permit };
        } catch (err) {
          permit.cancel();
          throw err;
        }
      }
      // The token ran out while this waited for the slot: give the slot back, renew first.
      permit.cancel();
    }
  }

  /** One authorized Data API exchange: a 401 drops the token and the call is made once more with a new one. */
  async function authorized(
    key: AccessKeyRef,
    service: Service,
    scope: LimitScope,
    endpoint: Endpoint,
    json: unknown,
    what: string,
    request: RequestOptions,
  ): Promise<HttpTextResponse> {
    for (let renewed = false; ; renewed = true) {
      const { token, permit } = await tokenAndSlot(key, service, scope, request);
      const started = clock.now();
      counts.requests += 1;
      try {
        // Built field by field: spreads of optional parts made a slow object on every read.
        const req: HttpRequest = { method: endpoint.method, url: endpoint.url, headers: dataAuthHeaders(token), what, timeoutMs: config.BB_REQUEST_TIMEOUT_MS, now, dispatcher };
        if (json !== undefined) req.json = json;
        if (request.signal) req.signal = request.signal;
        const res = await sendRequestText(req);
        serviceClock.observe(res.date, started, clock.now());
        limits.recover(scope);
        // Checked first: the line's fields would be built for nothing on every read otherwise.
        if (logger.isLevelEnabled('debug')) {
          logger.debug({ what, key: keyTag(key.accessKey), status: res.status, ms: clock.now() - started }, 'service call');
        }
        return res;
      } catch (err) {
        if (!isServiceError(err)) throw err;
        counts.failures[err.kind] += 1;
        logger.debug({ what, key: keyTag(key.accessKey), kind: err.kind, status: err.details.status }, 'service call failed');
        if (err.kind === 'auth') {
          tokens.refused(key.accessKey, service, token);
          if (!renewed) continue;
          throw new ServiceError('auth', `${what}: the service refused a freshly issued token too (HTTP 401)`, {
            status: 401,
          });
        }
        throw limits.failed(scope, err);
      } finally {
        permit.release();
      }
    }
  }

  // Polls repeat themselves: items unchanged since an earlier read (of any key) are not parsed again,
  // and a body the same as its endpoint's last one (timestamp aside) is not parsed at all.
  const parseCache = createItemsParseCache();
  const bodyMemo = createItemsBodyMemo();
  const listRead = (key: AccessKeyRef, service: Service, endpoint: Endpoint, memoKey: string, what: string, options?: RequestOptions) =>
    call(what, options, async (request) => {
      const scope = { kind: 'items', accessKey: key.accessKey, service } as const;
      // Form A reads with a POST; it carries an empty JSON object, as servers expect a body on a POST.
      const res = await authorized(key, service, scope, endpoint, endpoint.method === 'POST' ? {} : undefined, what, request);
      const read = parseItemsAnswer(service, res, what, { cache: parseCache, memo: bodyMemo, key: memoKey });
      if (!read.rejected) return read;
      for (const [reason, n] of Object.entries(read.rejected) as [ItemRejectReason, number][]) {
        counts.rejectedItems[reason] = (counts.rejectedItems[reason] ?? 0) + n;
        if (rejectLogged.has(`${service}|${reason}`)) continue;
        rejectLogged.add(`${service}|${reason}`);
        logger.warn({ what, reason, skipped: n, kept: read.items.length }, 'items kept out as unusable (logged once per service and reason; see bot_items_rejected_total)');
      }
      return read;
    });

  /** Each key's poll of each service asks the same URL every time: built once, with its memo key and wording. */
  const polls = new Map<string, { endpoint: Endpoint; memoKey: string; what: string }>();
  const pollEndpoint = (service: Service, accessKey: string) => {
    const id = `${service}\n${accessKey}`;
    let poll = polls.get(id);
    if (!poll) {
      const endpoint = itemsEndpoint(config, service, accessKey);
      poll = { endpoint, memoKey: endpointKey(endpoint), what: `${service} items read` };
      // Keys come and go: the map starts over rather than keep every key ever polled.
      if (polls.size >= MAX_POLL_ENDPOINTS) polls.clear();
      polls.set(id, poll);
    }
    return poll;
  };

  return {
    limits,
    stats: () => ({ requests: counts.requests, failures: { ...counts.failures }, rejectedItems: { ...counts.rejectedItems } }),

    async checkKey(key, service, options) {
      await call(`${service} key check`, options, (request) => tokens.request(key, service, request));
    },

    hasValidToken: (accessKey, service) => tokens.valid(accessKey, service) !== undefined,

    async writeFilter(key, service, filter: FilterSettings, options) {
      const what = `${service} filter write`;
      const settings = filterSettingsSchema.safeParse(filter);
      if (!settings.success) throw new ServiceError('malformed', `${what}: the filter settings are not valid`);
      const body = toFilterBody(kindOf(service), settings.data);
      const scope = { kind: 'filters', accessKey: key.accessKey, service } as const;
      const endpoint = filterEndpoint(config, service, key.accessKey);
      await call(what, options, (request) => authorized(key, service, scope, endpoint, body, what, request));
    },

    // Not async: an async function returning listRead's promise would add turns to every read.
    readItems(key, service, options): Promise<ItemsRead> {
      try {
        const poll = pollEndpoint(service, key.accessKey);
        return listRead(key, service, poll.endpoint, poll.memoKey, poll.what, options);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },

    async readEventItems(key, service, eventId, options): Promise<ItemsRead> {
      const endpoint = eventItemsEndpoint(config, service, key.accessKey, eventId);
      return listRead(key, service, endpoint, endpointKey(endpoint), `${service} event items read`, options);
    },

    async readItem(key, service, itemId, options): Promise<Opportunity> {
      const what = `${service} item read`;
      const endpoint = itemEndpoint(config, service, key.accessKey, itemId);
      const scope = { kind: 'items', accessKey: key.accessKey, service } as const;
      return call(what, options, async (request) => {
        const res = await authorized(key, service, scope, endpoint, undefined, what, request);
        return parseItemBody(service, requireJson(parseJsonBody(res), what), itemId, what);
      });
    },

    dictionaries: (lang) => dictionaries.get(lang),
    cachedDictionaries: (lang) => dictionaries.cached(lang),
    serviceClockOffsetMs: () => serviceClock.offsetMs(),

    // Each figure is worked out when read: the scheduler asks this before every read and reads
    // one of them, and working out all four (three limiter budgets) was a share of each read's CPU.
    budget(accessKey: string, service: Service): BudgetView {
      return {
        get tokensLeft() {
          return limits.tokensLeft(accessKey);
        },
        get readsLeft() {
          return limits.readsLeft(accessKey, service);
        },
        get tokenExpiresInMs() {
          return tokens.expiresInMs(accessKey, service);
        },
        get pausedForMs() {
          return limits.budget({ kind: 'items', accessKey, service }).pausedForMs;
        },
      };
    },

    pollFreeInMs: (accessKey, service) => limits.pollFreeInMs(accessKey, service),
    itemWindowMs: limits.itemWindowMs,
    setPollingTokens: (accessKey, perHour) => limits.setPollingTokens(accessKey, perHour),

    forgetKey: (accessKey) => tokens.forget(accessKey),

    close() {
      closing ??= (async () => {
        const closed = new ClientClosedError();
        shutdown.abort(closed);
        calls.abort(closed);
        await limits.close();
        await dictionaries.close();
        await ownAgent?.close();
      })();
      return closing;
    },
  };
}

/** `{ [name]: value }` when the value is set, else nothing (keeps optional options truly absent). */
function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}
