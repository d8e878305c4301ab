/**
 * What the rest of the bot asks of the Data Service client. The bot and the scheduler depend
 * on this interface only; `createServiceClient` in `client.ts` implements it over HTTP.
 */
import type { Dictionaries } from './dictionaries-model.js';
import type { FilterSettings } from './filter-model.js';
import type { ItemsRead, Opportunity } from './opportunity.js';
import type { Service } from './services.js';

/** A user's key pair. The secret is revealed only into the token request's header. */
export interface AccessKeyRef {
  accessKey: string;
  revealSecret(): string;
}

export interface RequestOptions {
  /**
   * true (default): wait for the limiter. false: if the limit has no room now, throw
   * ServiceError('rate_limited', { local: true, retryAfterMs }) without sending anything.
   */
  wait?: boolean;
  /**
   * With wait === false: how long a call may still wait for the next free slot before it is
   * refused. Default 0, except interactive item reads (lookups): one read slot, which polls leave
   * to them, so a lookup never fails because polling uses the whole read budget.
   */
  maxWaitMs?: number;
  /**
   * Interactive lookups (a user waiting) go ahead of background polls. Polls are not retried
   * inside the client: the caller (the scheduler) backs off per subscription.
   */
  priority?: 'interactive' | 'poll';
  /**
   * The Telegram user an interactive call is made for. Where the service counts a scope for the
   * whole bot (LIMIT_SCOPE=address, LIMIT_SCOPE_TOKENS=address), one user may hold only a share of
   * its interactive budget (`userShareOf`); a call over it is refused with `share: 'user'`.
   */
  userId?: number;
  signal?: AbortSignal;
}

/** What the limits allow now, for /status and for the scheduler's plan: read it at once (a field may be worked out as it is read). */
export interface BudgetView {
  /** Token requests left in the current hour window for this key. */
  tokensLeft: number;
  /** Item reads left in the current minute window for this key's scope on this host. */
  readsLeft: number;
  /** ms until the current token for this (key, service) expires; 0 when none is held. */
  tokenExpiresInMs: number;
  /** ms until this scope's 429 pause ends; 0 when not paused. */
  pausedForMs: number;
}

export interface ServiceClient {
  /** One token request (within the token limit): resolves when the pair works for `service`. */
  checkKey(key: AccessKeyRef, service: Service, opts?: RequestOptions): Promise<void>;
  /** Whether a token for (key, service) is held and valid now (no request needed to read). */
  hasValidToken(accessKey: string, service: Service): boolean;
  /** Create or replace the filter (form A or B per settings). */
  writeFilter(key: AccessKeyRef, service: Service, filter: FilterSettings, opts?: RequestOptions): Promise<void>;
  /** The list read of the filter's current items. */
  readItems(key: AccessKeyRef, service: Service, opts?: RequestOptions): Promise<ItemsRead>;
  /** Items of one event under the filter (form B only; not_found where the host lacks it). */
  readEventItems(key: AccessKeyRef, service: Service, eventId: string, opts?: RequestOptions): Promise<ItemsRead>;
  /** One item by id (form B only; not_found where the host lacks it or the id is unknown). */
  readItem(key: AccessKeyRef, service: Service, itemId: string, opts?: RequestOptions): Promise<Opportunity>;
  /** Dictionaries in `lang` from the cache (fetching only when the cache is empty or stale). */
  dictionaries(lang: 'en' | 'ru'): Promise<Dictionaries | undefined>;
  /** The cached dictionaries without any request; undefined before the first fetch. */
  cachedDictionaries(lang: 'en' | 'ru'): Dictionaries | undefined;
  /**
   * The service's clock minus ours, ms, as its answers' `Date` headers show it (service-clock.ts):
   * a leg's age is our clock plus this minus its `updated`. Absent: taken as 0.
   */
  serviceClockOffsetMs?(): number;
  budget(accessKey: string, service: Service): BudgetView;
  /** ms until a poll of (key, service) fits the read limit (0: now); cheap, asked before every poll. */
  pollFreeInMs?(accessKey: string, service: Service): number;
  /** How long an item read counts in the limiter's window from its answer (`Limits.itemWindowMs`): the scheduler's pace. */
  readonly itemWindowMs?: number;
  /** The token requests an hour polling plans for the key (undefined: not polled); interactive use keeps to the rest. */
  setPollingTokens?(accessKey: string, perHour: number | undefined): void;
  /** Drops cached tokens of a key (on /forget or a new secret). */
  forgetKey(accessKey: string): void;
  close(): Promise<void>;
}
