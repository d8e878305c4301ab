/**
 * The subscription registry: who is polled for what. A subscription is a user's key × a service
 * with an active filter; the registry keeps them (by id and by user), each key's token plan and
 * where its windows start, and the read scopes (key × host, or the host under
 * LIMIT_SCOPE=address) with the subscriptions that share them.
 *
 * `refresh` re-reads one user from the store and brings the registry in line: subscriptions no
 * longer wanted are dropped (and taken out of the due queue), new ones are added and scheduled
 * at a random moment so a restart starts at the steady pace, and a new plan wakes those parked
 * until their next token window. The registry decides nothing about when to read: that is the
 * loop's (scheduler.ts) and the token gate's (token-gate.ts). In a cluster a worker registers only
 * the users it `owns` (their bucket lease): a refresh of anyone else drops their subscriptions.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AccessKeyRef, ServiceClient } from '../service/client-types.js';
import type { Opportunity } from '../service/opportunity.js';
import { SERVICES, type Service } from '../service/services.js';
import { storedKeyRef, type SecretOpener } from '../store/key-ref.js';
import { subscriptionKey, type UserRecord } from '../store/schema.js';
import type { Store } from '../store/port.js';
import type { SubscriptionRef } from './port.js';
import type { ScheduleQueue } from './queue.js';
import { planTokens, type TokenPlan } from './token-plan.js';
import { storedTier, type PlanTier } from './plan-tier.js';

/** One subscription as the scheduler tracks it. */
export interface Sub extends SubscriptionRef {
  /** The queue id: the same as `subKey`. */
  id: string;
  accessKey: string;
  keyRef: AccessKeyRef;
  scope: string;
  /** Fixed offset within a window so the key's services do not all start on the same millisecond. */
  phaseMs: number;
  /** Window index in which this subscription last requested a token, and when. */
  tokenWindow: number | undefined;
  /** LIMIT_SCOPE=address: the window in which it was given a turn of the shared token budget. */
  grantWindow: number | undefined;
  lastAcquireAt: number | undefined;
  /** Parked until a token window of its service (not backing off): a new plan may wake it sooner. */
  waitingForWindow: boolean;
  /** When its last read was sent: the poll floor is counted from here. */
  lastStartAt: number | undefined;
  /** Holds a slot of its scope at its due time. */
  reserved: boolean;
  failures: number;
  known: Map<string, Opportunity>;
  latest: Opportunity[];
  lastReadAt: number | undefined;
  /** The filter's `savedAt` at its last read: a filter saved again makes the next read a first one. */
  filterSavedAt?: number;
  lastStatusWriteAt: number;
  inFlight: boolean;
  removed: boolean;
  /** Its plan as its last telling read showed it; undefined until one did (it then reads alone). */
  tier: PlanTier | undefined;
}

/** A polled key: its token plan and where its windows start. */
export interface KeyState {
  accessKey: string;
  userId: number;
  plan: TokenPlan;
  /** Where this key's windows start, within one window (stable per key, so restarts keep the rhythm). */
  offsetMs: number;
}

/** A read scope: its next free slot, its 429 pause, and the subscriptions reading in it. */
export interface ScopeState {
  nextSlotAt: number;
  pausedUntil: number;
  subs: Set<Sub>;
}

/** What the registry needs of the scheduler around it. */
export interface SubscriptionRegistryContext {
  config: Pick<Config, 'LIMIT_TOKENS_PER_HOUR' | 'LIMIT_SCOPE'>;
  store: Pick<Store, 'getUser'>;
  /** Tells the client how many token requests an hour polling plans for a key. */
  client: Pick<ServiceClient, 'setPollingTokens'>;
  vault: SecretOpener;
  clock: Clock;
  random: () => number;
  /** Token window length (tuning.tokenTtlMs) and the requests an hour left to the bot. */
  windowMs: number;
  tokenReserve: number;
  isAllowed: (userId: number) => boolean;
  /** Whether this process polls the user (a cluster's worker: it holds the user's bucket lease). */
  owns: (userId: number) => boolean;
  /** A dropped subscription leaves the due queue at once; `dueAt` finds the turn it held. */
  queue: Pick<ScheduleQueue, 'remove' | 'dueAt'>;
  /** The spacing of two turns in one read scope (the scheduler's `paceMs`). */
  paceMs: number;
  /** Puts a subscription in the due queue (the loop's own schedule, which may wake it). */
  schedule(sub: Sub, due: number): void;
  /** Told after each refresh which subscriptions the user now has (the read groups follow them). */
  afterRefresh?(userId: number, current: Iterable<Sub>): void;
}

export interface SubscriptionRegistry {
  /** Every subscription polled now, by id. */
  readonly subs: ReadonlyMap<string, Sub>;
  /** The user's subscriptions by service; undefined when none. */
  ofUser(userId: number): ReadonlyMap<Service, Sub> | undefined;
  /** The plan of a polled key. */
  keyOf(accessKey: string): KeyState | undefined;
  /** The read scope's state, created on first use. */
  scopeOf(id: string): ScopeState;
  /** The read scope of a key × service under LIMIT_SCOPE. */
  scopeIdOf(accessKey: string, service: Service): string;
  /** The services the user is polled for now. */
  activeServices(user: Readonly<UserRecord> | undefined): Service[];
  /** The token plan a key with these services gets, `rank` (the user's `serviceRank`) favoured first. */
  planOf(services: Iterable<Service>, rank?: readonly Service[]): TokenPlan;
  /** Where a key's windows start within one window (stable per key). */
  offsetOf(accessKey: string): number;
  /** Brings the user's subscriptions in line with the store; new ones are first read within `firstReadWithinMs`. */
  refresh(userId: number, firstReadWithinMs: number): void;
}

/** FNV-1a: a stable spread of keys over the window, the same after every restart. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function createSubscriptionRegistry(ctx: SubscriptionRegistryContext): SubscriptionRegistry {
  const { config, store, client, vault, clock, random, isAllowed, owns, queue, schedule } = ctx;
  const W = ctx.windowMs;
  const subs = new Map<string, Sub>();
  const subsByUser = new Map<number, Map<Service, Sub>>();
  const keys = new Map<string, KeyState>();
  const keyOfUser = new Map<number, string>();
  const scopes = new Map<string, ScopeState>();

  const scopeIdOf = (accessKey: string, service: Service) =>
    config.LIMIT_SCOPE === 'address' ? service : `${accessKey}|${service}`;

  const scopeOf = (id: string): ScopeState => {
    let scope = scopes.get(id);
    if (!scope) {
      scope = { nextSlotAt: 0, pausedUntil: 0, subs: new Set() };
      scopes.set(id, scope);
    }
    return scope;
  };

  const activeServices = (user: Readonly<UserRecord> | undefined): Service[] => {
    if (!user || user.blocked || !user.key || !isAllowed(user.id) || !owns(user.id)) return [];
    return SERVICES.filter((s) => {
      const f = user.filters[s];
      return (f !== undefined && !f.paused) || user.drafts[s] !== undefined;
    });
  };

  const planOf = (services: Iterable<Service>, rank?: readonly Service[]) =>
    planTokens({ services, tokensPerHour: config.LIMIT_TOKENS_PER_HOUR, reserve: ctx.tokenReserve, windowMs: W, ...(rank && { rank }) });
  const offsetOf = (accessKey: string) => hash(accessKey) % W;

  /**
   * A subscription dropped while it held a turn of its scope (`reserved`) leaves that turn empty,
   * and the scope's chain of turns as long as before: the others would wait for turns nobody
   * takes. A worker that gives up buckets drops many at once, and its remaining users then went
   * unread for up to a whole round of the old chain (a minute for 30 users on one host). So the
   * later turns move up one, and the chain ends one turn sooner. O(subscriptions in the scope):
   * one under LIMIT_SCOPE=key, the host's users in this process under the address scope.
   */
  const closeTurn = (scope: ScopeState, turnAt: number) => {
    for (const other of scope.subs) {
      if (!other.reserved || other.inFlight) continue;
      const at = queue.dueAt(other.id);
      if (at !== undefined && at > turnAt) schedule(other, at - ctx.paceMs);
    }
    scope.nextSlotAt -= ctx.paceMs;
  };

  const removeSub = (sub: Sub) => {
    sub.removed = true;
    // Taken off the queue already when dropped at its own dispatch: its turn was then.
    const turnAt = queue.dueAt(sub.id) ?? clock.now();
    queue.remove(sub.id);
    subs.delete(sub.id);
    const scope = scopes.get(sub.scope);
    scope?.subs.delete(sub);
    if (scope && sub.reserved) closeTurn(scope, turnAt);
    // An empty scope is dropped unless a 429 pause still holds it (a returning user must honour it).
    if (scope && scope.subs.size === 0 && scope.pausedUntil <= clock.now()) scopes.delete(sub.scope);
    const mine = subsByUser.get(sub.userId);
    mine?.delete(sub.service);
    if (mine?.size === 0) subsByUser.delete(sub.userId);
  };

  const refresh = (userId: number, firstReadWithinMs: number) => {
    const user = store.getUser(userId);
    const wanted = activeServices(user);
    const accessKey = user?.key?.accessKey;
    const mine = subsByUser.get(userId) ?? new Map<Service, Sub>();

    for (const sub of [...mine.values()]) {
      if (sub.accessKey !== accessKey || !wanted.includes(sub.service)) removeSub(sub);
    }
    const oldKey = keyOfUser.get(userId);
    if (oldKey !== undefined && (oldKey !== accessKey || wanted.length === 0)) {
      keys.delete(oldKey);
      keyOfUser.delete(userId);
      client.setPollingTokens?.(oldKey, undefined);
    }
    if (!user || accessKey === undefined || wanted.length === 0) {
      subsByUser.delete(userId);
      ctx.afterRefresh?.(userId, []);
      return;
    }

    keyOfUser.set(userId, accessKey);
    // The ledger belongs to the key, not the plan: a new plan still counts the last hour's requests.
    const plan = planOf(wanted, user.serviceRank);
    keys.set(accessKey, { accessKey, userId, plan, offsetMs: offsetOf(accessKey) });
    // Interactive token requests of the key keep to what this plan leaves of the hour.
    client.setPollingTokens?.(accessKey, plan.tokensPerCycle);

    const now = clock.now();
    const current = subsByUser.get(userId) ?? new Map<Service, Sub>();
    for (const service of wanted) {
      const existing = current.get(service);
      if (existing) {
        // A plan another process found out (a front's mirror learns it from the worker's status).
        existing.tier ??= storedTier(user.status[service], accessKey);
        continue;
      }
      const id = subscriptionKey(userId, service);
      const sub: Sub = {
        id,
        subKey: id,
        userId,
        service,
        accessKey,
        keyRef: storedKeyRef(store, vault, userId, accessKey),
        scope: scopeIdOf(accessKey, service),
        phaseMs: Math.floor(random() * Math.min(2_000, W / 10)),
        tokenWindow: undefined,
        grantWindow: undefined,
        lastAcquireAt: undefined,
        waitingForWindow: false,
        lastStartAt: undefined,
        reserved: false,
        failures: 0,
        known: new Map(),
        latest: [],
        lastReadAt: undefined,
        lastStatusWriteAt: 0,
        inFlight: false,
        removed: false,
        // Remembered from an earlier read with this key (a restart, a worker taking the user over).
        tier: storedTier(user?.status[service], accessKey),
      };
      current.set(service, sub);
      subs.set(id, sub);
      scopeOf(sub.scope).subs.add(sub);
      // Spread at random: a restart then starts at the steady pace, not in a burst.
      schedule(sub, now + Math.floor(random() * firstReadWithinMs));
    }
    subsByUser.set(userId, current);
    ctx.afterRefresh?.(userId, current.values());
    // A draft is due at once (the token gate says when it may be written); out of any read group, it is due alone.
    for (const sub of current.values()) {
      if (user.drafts[sub.service] !== undefined && !sub.inFlight && !sub.reserved) schedule(sub, now);
    }
    // A new plan may open a window sooner for those parked until their next one.
    for (const sub of current.values()) {
      if (sub.waitingForWindow && !sub.inFlight) {
        sub.waitingForWindow = false;
        schedule(sub, now);
      }
    }
  };

  return {
    subs,
    ofUser: (userId) => subsByUser.get(userId),
    keyOf: (accessKey) => keys.get(accessKey),
    scopeOf,
    scopeIdOf,
    activeServices,
    planOf,
    offsetOf,
    refresh,
  };
}
