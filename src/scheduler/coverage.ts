/**
 * Coverage: what /status and the filter dialog tell a user of each service — its share of the
 * time, the planned interval between reads and its state — and, with `extra`, what adding one
 * more service would leave them (so the trade-off is explained before saving). Computed from
 * the same plans the loop follows: the key's own token plan, or under LIMIT_SCOPE_TOKENS=address
 * the user's turns of the one shared budget; under LIMIT_SCOPE=address the host's read slots
 * are shared by its read groups (read-groups.ts) in turn, and a member is read whenever any
 * member of its group may read: its share is the group's, and it is told how many others share
 * its reads; under overload every interval is stretched by the load factor.
 */
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { SERVICES, type Service } from '../service/services.js';
import type { Store } from '../store/port.js';
import type { AddressTokenTurns, TurnMember } from './address-turns.js';
import type { ServiceCoverage } from './port.js';
import { groupShare, type ReadGroup, type ReadGroups } from './read-groups.js';
import type { Sub, SubscriptionRegistry } from './subscriptions.js';
import { longestGap, nextTokenAt } from './token-plan.js';

export interface CoverageContext {
  config: Pick<Config, 'LIMIT_SCOPE'>;
  store: Pick<Store, 'getUser'>;
  registry: Pick<SubscriptionRegistry, 'subs' | 'planOf' | 'keyOf' | 'offsetOf'>;
  /** Present under LIMIT_SCOPE=address. */
  groups: Pick<ReadGroups, 'onService'> | undefined;
  /** Present under LIMIT_SCOPE_TOKENS=address. */
  turns: AddressTokenTurns | undefined;
  isAllowed: (userId: number) => boolean;
  /** The poll floor and the read limit's pace, ms. */
  floorMs: number;
  paceMs: number;
  /** The load factor as it stands. */
  loadFactor: { readonly factor: number };
  clock: Pick<Clock, 'now'>;
  /** Whether a token for (key, service) is held now: the service is read at once, whatever its window. */
  heldToken?: (accessKey: string, service: Service) => boolean;
  /** The key's token requests of the rolling hour (the scheduler's ledger); a front has none. */
  ledger?: (accessKey: string) => { count(at: number): number; oldest(at: number): number | undefined };
}

export type CoverageOf = (userId: number, extra?: Service) => Partial<Record<Service, ServiceCoverage>>;

export function createCoverage(ctx: CoverageContext): CoverageOf {
  const { config, store, registry, turns, isAllowed, floorMs, paceMs, loadFactor, groups } = ctx;
  return (userId, extra) => {
    const user = store.getUser(userId);
    if (!user) return {};
    // A draft waiting for the token budget is planned like an active filter (drafts.ts).
    const drafted = (s: Service) => user.drafts[s] !== undefined;
    const listed = SERVICES.filter((s) => user.filters[s] !== undefined || drafted(s) || s === extra);
    const active = listed.filter((s) => s === extra || drafted(s) || !user.filters[s]!.paused);
    const polled = Boolean(user.key) && !user.blocked && isAllowed(userId);
    const plan = polled && !turns ? registry.planOf(active, user.serviceRank) : undefined;
    const now = ctx.clock.now();
    const accessKey = user.key?.accessKey;
    // Under LIMIT_SCOPE=address the user's share of the one token budget depends on everyone's subscriptions.
    const members: TurnMember[] | undefined = turns && polled
      ? [...[...registry.subs.values()].filter((s) => s.userId !== userId), ...active.map((service) => ({ userId, service }))]
      : undefined;
    const shares = members && turns ? turns.shares(members) : undefined;
    const shareOf = (service: Service) =>
      shares ? (shares.get(`${userId}:${service}`) ?? 0) : (plan?.services[service]?.share ?? 0);
    const result: Partial<Record<Service, ServiceCoverage>> = {};
    for (const service of listed) {
      const state: ServiceCoverage['state'] = !user.key
        ? 'no-key'
        : user.blocked
          ? 'blocked'
          : !active.includes(service)
            ? 'paused'
            : 'active';
      let share = state === 'active' ? shareOf(service) : 0;
      let intervalMs = Math.max(floorMs, paceMs);
      let sharedWith: number | undefined;
      if (config.LIMIT_SCOPE === 'address' && groups) {
        // Token turns shared (LIMIT_SCOPE_TOKENS=address), or each key on its own plan.
        const memberShare = (other: Sub) =>
          shares ? (shares.get(`${other.userId}:${service}`) ?? 0) : (registry.keyOf(other.accessKey)?.plan.services[service]?.share ?? 0);
        // The user's own group: one filter and one plan (read-groups.ts); none while their plan is not known yet.
        const inGroup = (group: ReadGroup) => state === 'active' && group.members.some((m) => m.userId === userId);
        // Groups of the host take turns: the expected number of groups that may read at once.
        let load = 0;
        for (const group of groups.onService(service)) {
          const others = group.members.filter((m) => m.userId !== userId).map(memberShare);
          if (inGroup(group)) {
            sharedWith = others.length;
            share = groupShare([share, ...others]);
          } else load += groupShare(others);
        }
        load += share;
        intervalMs = Math.max(floorMs, paceMs * Math.max(1, load));
      }
      const when = plan && accessKey !== undefined && state === 'active'
        ? ctx.heldToken?.(accessKey, service) ? now : nextTokenAt(plan, service, registry.offsetOf(accessKey), now, ctx.ledger?.(accessKey))
        : undefined;
      // Under overload everyone is read less often than planned: /status must say so.
      result[service] = {
        share, intervalMs: Math.round(intervalMs * loadFactor.factor), state,
        ...(sharedWith ? { sharedWith } : {}),
        ...(drafted(service) && { draft: true as const }),
        ...(when !== undefined && { nextTokenAt: when }),
        ...(plan && state === 'active' && { longestGapMs: longestGap(plan, service) * plan.windowMs }),
      };
    }
    return result;
  };
}
