/**
 * What each limiter scope is called and what it may send. A scope's id names what the service
 * counts by (LIMIT_SCOPE / LIMIT_SCOPE_TOKENS: an access key, or this bot's address at a host), so
 * two requests the service counts together always meet in one limiter; its budget is the LIMIT_*
 * setting of its kind and the share of it interactive calls may hold, the rest being polling's.
 * Pure naming and arithmetic: the limiters themselves are in `limits.ts`.
 */
import type { LimitKind, LimitScope, LimitsConfig } from './limits-port.js';
import { serviceBaseUrl } from './paths.js';
import type { Service } from './services.js';

/**
 * Token requests an hour interactive use may make in one scope: the token plan leaves exactly
 * this many of the hour to the bot (/connect checks, a renewal after a 401), the rest is polling's.
 */
export const INTERACTIVE_TOKENS_PER_HOUR = 2;
/**
 * Token requests an hour kept for polling a key the scheduler has no plan for yet: what one
 * service kept readable all the time needs (an hour of 5-minute tokens). A new user's /connect,
 * a mistyped secret and the first filters fit in the rest; their first service then starts at
 * full coverage.
 */
export const POLLING_TOKENS_UNPLANNED = 12;
/** Share of each read window interactive lookups may hold; the rest is polling's whatever users do. */
export const INTERACTIVE_READ_SHARE = 0.2;
/**
 * Share of a scope's interactive budget one user may hold when the scope is the whole bot's (an
 * address-counted scope): the rest stays for the other users, so one user's junk /connects or
 * lookups never refuse everyone else's for the window.
 */
export const USER_INTERACTIVE_SHARE = 0.5;

/**
 * The user id under which every user without a verified key is counted, as one user, where the
 * scope is every user's: their /connect checks share one user's part, so a few fresh accounts
 * trying junk pairs can use up at most that part, never the checks of users whose keys work
 * (audit 3, H1: two accounts with one junk /connect each refused everyone's /connect for an hour).
 */
export const NEWCOMERS_SHARE_ID = 0;

/** Interactive sends one user may hold in a window of a scope whose interactive cap is `cap`: half, at least one. */
export function userShareOf(cap: number): number {
  return Math.max(1, Math.floor(cap * USER_INTERACTIVE_SHARE));
}

/**
 * Whether the service counts a scope of `kind` per client address (LIMIT_SCOPE, LIMIT_SCOPE_TOKENS),
 * so that all users of the bot share it. Dictionaries are the bot's alone, never a user's.
 */
export function addressCounted(modes: { scopeMode: 'key' | 'address'; tokenScopeMode: 'key' | 'address' }, kind: LimitKind): boolean {
  if (kind === 'tokens') return modes.tokenScopeMode === 'address';
  if (kind === 'dicts') return false;
  return modes.scopeMode === 'address';
}

export interface Budgets {
  /** Sends per window, per kind: the LIMIT_* settings. */
  limitOf: Record<LimitKind, number>;
  /** Of those, what interactive calls may hold per window and scope (token scopes keyed by an access key adjust it by the key's plan). */
  capOf: Record<LimitKind, number>;
}

/**
 * The budgets of each kind. `interactiveCaps` overrides the defaults: tokens
 * INTERACTIVE_TOKENS_PER_HOUR, item reads INTERACTIVE_READ_SHARE of the limit (at least one),
 * filter writes and dictionaries the whole limit (polling makes none).
 */
export function budgetsOf(config: LimitsConfig, interactiveCaps: Partial<Record<LimitKind, number>> = {}): Budgets {
  const limitOf: Record<LimitKind, number> = {
    tokens: config.LIMIT_TOKENS_PER_HOUR,
    filters: config.LIMIT_FILTERS_PER_HOUR,
    items: config.LIMIT_ITEMS_PER_MINUTE,
    dicts: config.LIMIT_DICTS_PER_DAY,
  };
  const capOf: Record<LimitKind, number> = {
    tokens: Math.min(limitOf.tokens, interactiveCaps.tokens ?? INTERACTIVE_TOKENS_PER_HOUR),
    items: Math.min(limitOf.items, interactiveCaps.items ?? Math.max(1, Math.floor(limitOf.items * INTERACTIVE_READ_SHARE))),
    filters: Math.min(limitOf.filters, interactiveCaps.filters ?? limitOf.filters),
    dicts: Math.min(limitOf.dicts, interactiveCaps.dicts ?? limitOf.dicts),
  };
  return { limitOf, capOf };
}

export interface ScopeIds {
  /** The id of the limiter a request of `scope` goes through. */
  scopeId(scope: LimitScope): string;
  /** Drops the ids kept for item reads (they are rebuilt as asked). */
  forget(): void;
}

export function createScopeIds(config: LimitsConfig): ScopeIds {
  const tokenScope = config.LIMIT_SCOPE_TOKENS ?? 'key';
  const scopeIdOf = (scope: LimitScope): string => {
    switch (scope.kind) {
      case 'tokens':
        return tokenScope === 'address'
          ? `tokens@${config.BB_AUTH_URL}`
          : `tokens:${encodeURIComponent(scope.accessKey)}`;
      case 'dicts':
        return `dicts@${config.BB_DICTS_URL}`;
      default: {
        const host = serviceBaseUrl(config, scope.service);
        return config.LIMIT_SCOPE === 'address'
          ? `${scope.kind}@${host}`
          : `${scope.kind}:${encodeURIComponent(scope.accessKey)}@${host}`;
      }
    }
  };
  // Asked several times per read: the ids of item reads are kept per service and key, not built each time.
  const readIds = new Map<Service, Map<string, string>>();
  return {
    scopeId(scope) {
      if (scope.kind !== 'items') return scopeIdOf(scope);
      let ofService = readIds.get(scope.service);
      if (!ofService) readIds.set(scope.service, (ofService = new Map()));
      let id = ofService.get(scope.accessKey);
      if (id === undefined) {
        id = scopeIdOf(scope);
        ofService.set(scope.accessKey, id);
      }
      return id;
    },
    forget() {
      readIds.clear();
    },
  };
}
