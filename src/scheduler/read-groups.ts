/**
 * Read groups under LIMIT_SCOPE=address. There the service counts item reads per address and
 * host, so every subscription of a host draws on one budget (30 reads a minute for the whole
 * bot); yet subscriptions of one service whose filters the service sees alike get the same
 * answer. A read group is such a set: one service, one filter fingerprint (what the bot writes
 * to the service, `toFilterBody`; the user's language, bankroll or chat play no part). The loop
 * takes turns per group, not per subscription, so a host's budget is shared fairly between
 * groups whatever their size, and one read serves every member.
 *
 * Who reads: a member whose key may read now by its own token plan, members taken in turn after
 * the last reader, one already holding a token first (no extra token request) — unless a member's
 * key has not read for the group for a while (`groupVerifyEveryMs`): it reads next when its plan
 * lets it request a token, so the service checks every member's access now and then and no one
 * key's tokens carry the group. Who is served: every member still owned by this process and
 * entitled now (its filter not paused, e.g. after a 401 or 403 on its own key, and its key the one
 * the user connected); each keeps its own alert state, diff and local filter (apply-read.ts).
 *
 * Plan tiers: a read group holds members of one plan only. A key without paid access gets the
 * odds masked, one with it gets them shown; a masked read must never serve a member who pays (they
 * would get hidden odds), and a full read must never serve one who does not (the service's paywall
 * bypassed through the bot). A member's plan is what its own reads showed (plan-tier.ts, kept in
 * its stored status); until one did, it is a group of its own and reads for itself alone. A read whose plan is not its group's
 * (the reader's plan changed) serves the reader alone and moves it to the group of its plan. A
 * member whose plan changes while others read for it is found out at its own next read, which
 * the rotation below brings within `groupVerifyEveryMs`.
 *
 * Membership follows the registry: a subscription joins its group when first scheduled and is
 * moved when its filter changes or dropped when it goes (`sync`, after every refresh of a user).
 */
import { toFilterBody } from '../service/filter-body.js';
import type { FilterSettings } from '../service/filter-model.js';
import { kindOf, type Service } from '../service/services.js';
import type { UserRecord } from '../store/schema.js';
import type { Store } from '../store/port.js';
import type { ScheduleQueue } from './queue.js';
import type { PlanTier } from './plan-tier.js';
import type { Sub } from './subscriptions.js';
import type { Eligibility } from './token-gate.js';

/** One read group: the loop's unit of turns under LIMIT_SCOPE=address. */
export interface ReadGroup {
  /** The queue id: `group:<service>|<fingerprint>`. */
  id: string;
  service: Service;
  fingerprint: string;
  /** The plan of its members; undefined: one member whose plan no read has shown yet, alone. */
  tier: PlanTier | undefined;
  /** The read scope (the host). */
  scope: string;
  /** Members by subscription id, kept sorted so turns go round in a stable order. */
  members: Sub[];
  /** The member that read last: the next turn starts after it. */
  lastReaderId: string | undefined;
  lastStartAt: number | undefined;
  /** Holds a slot of its scope at its due time. */
  reserved: boolean;
  /** Failed reads in a row (not 401/403, which pause the reader alone). */
  failures: number;
  inFlight: boolean;
  removed: boolean;
}

/**
 * What the service returns for a filter depends on this body only: equal bodies, equal answers.
 * Id lists are sets to the service, so they are sorted to keep equal filters in one group.
 */
export function filterFingerprint(service: Service, settings: FilterSettings): string {
  const body = toFilterBody(kindOf(service), settings);
  const sorted = (ids: number[] | undefined) => (ids ? [...ids].sort((a, b) => a - b) : undefined);
  return JSON.stringify({ ...body, sports: sorted(body.sports), allowed_bookmakers: sorted(body.allowed_bookmakers) });
}

/** The part of a group's id that keeps plans apart: the tier, or the member alone while its plan is unknown. */
const tierPart = (sub: Sub): string => sub.tier ?? `alone:${sub.id}`;

/** Whether the user may be served `sub`'s reads now: its filter active, its key the one connected. */
export function entitled(user: Readonly<UserRecord> | undefined, sub: Sub): user is Readonly<UserRecord> {
  const filter = user?.filters[sub.service];
  return Boolean(user && !user.blocked && filter && !filter.paused && user.key?.accessKey === sub.accessKey);
}

/** Who reads for the group now, or when to look again (the earliest moment a member may). */
export type ReaderChoice = { ok: true; reader: Sub; acquire: boolean; window: number } | { ok: false; at: number };

/**
 * Picks the reader, members in turn after the last reader: first one whose key has not read for
 * the group within `verifyEveryMs` and whose plan lets it request a token now (its access is
 * checked, and readers rotate); else the first holding a token (no token request); else the
 * first whose plan lets it request one. `eligibility` is the token gate's.
 */
export function chooseReader(
  group: Pick<ReadGroup, 'members' | 'lastReaderId'>,
  now: number,
  verifyEveryMs: number,
  eligibility: (sub: Sub) => Eligibility,
): ReaderChoice {
  const { members } = group;
  const last = group.lastReaderId;
  const from = last === undefined ? 0 : members.findIndex((m) => m.id > last);
  const start = from < 0 ? 0 : from;
  let holder: ReaderChoice | undefined;
  let acquirer: ReaderChoice | undefined;
  let at = Infinity;
  for (let i = 0; i < members.length; i++) {
    const sub = members[(start + i) % members.length]!;
    // Still reading for the group it just left (a filter changed mid-read): one read per key at a time.
    if (sub.inFlight) {
      at = Math.min(at, now + 1_000);
      continue;
    }
    const ok = eligibility(sub);
    if (!ok.ok) {
      at = Math.min(at, ok.at);
      continue;
    }
    const stale = sub.lastStartAt === undefined || now - sub.lastStartAt >= verifyEveryMs;
    if (ok.acquire && stale) return { ok: true, reader: sub, acquire: true, window: ok.window };
    if (!ok.acquire) holder ??= { ok: true, reader: sub, acquire: false, window: ok.window };
    else acquirer ??= { ok: true, reader: sub, acquire: true, window: ok.window };
  }
  return holder ?? acquirer ?? { ok: false, at: Number.isFinite(at) ? at : now + 60_000 };
}

/**
 * A member's chance of being readable, `shares` (each member's own token share), combined: the
 * group is read while any member may read.
 */
export function groupShare(shares: Iterable<number>): number {
  let none = 1;
  for (const s of shares) none *= 1 - Math.max(0, Math.min(1, s));
  return 1 - none;
}

export interface ReadGroupsContext {
  store: Pick<Store, 'getUser'>;
  queue: Pick<ScheduleQueue, 'push' | 'remove' | 'dueAt'>;
  /** The read scope of a service (the host). */
  scopeOf(service: Service): string;
  /** Puts a group in the due queue (the loop's own push, which may wake it). */
  push(group: ReadGroup, due: number): void;
  /**
   * The chain of turns of a read scope (its next free slot) and the spacing of its turns: a group
   * that goes while it holds a turn gives it back (see `leave`). Without it turns are not given back.
   */
  turns?: { scopeOf(scope: string): { nextSlotAt: number }; paceMs: number };
}

export interface ReadGroups {
  get(id: string): ReadGroup | undefined;
  /** The group `sub` reads in (joining it on first use); undefined when its user has no filter for it. */
  groupOf(sub: Sub): ReadGroup | undefined;
  /** The groups of a service. */
  onService(service: Service): ReadGroup[];
  /**
   * A wake-up of a member (new, or a new plan): its group is due no later than `due`, unless it is
   * reading or holds a slot already.
   */
  wake(sub: Sub, due: number): void;
  /** Brings the user's memberships in line with their subscriptions and filters. */
  sync(userId: number, current: Iterable<Sub>): void;
  /** Drops a member (gone, or no longer owned). */
  leave(sub: Sub): void;
  /**
   * `reader` read for its group and the answer showed `tier` (undefined: nothing): whether the
   * answer may serve the whole group (the reader's plan is the group's). A reader whose plan
   * changed, or became known, moves to the group of its plan, due no later than `due`.
   */
  observe(reader: Sub, tier: PlanTier | undefined, due: number): boolean;
}

export function createReadGroups(ctx: ReadGroupsContext): ReadGroups {
  const groups = new Map<string, ReadGroup>();
  const bySub = new Map<Sub, ReadGroup>();
  const byUser = new Map<number, Set<Sub>>();

  const fingerprintOf = (sub: Sub): string | undefined => {
    const user = ctx.store.getUser(sub.userId);
    // A draft waiting to be written (drafts.ts) is the subscription's alone: it stays out of groups until then.
    if (user?.drafts[sub.service] !== undefined) return undefined;
    const filter = user?.filters[sub.service];
    return filter ? filterFingerprint(sub.service, filter.settings) : undefined;
  };

  const leave = (sub: Sub) => {
    const group = bySub.get(sub);
    if (!group) return;
    bySub.delete(sub);
    byUser.get(sub.userId)?.delete(sub);
    if (byUser.get(sub.userId)?.size === 0) byUser.delete(sub.userId);
    group.members = group.members.filter((m) => m !== sub);
    if (group.members.length === 0) {
      group.removed = true;
      groups.delete(group.id);
      const turnAt = ctx.queue.dueAt(group.id);
      ctx.queue.remove(group.id);
      if (group.reserved && turnAt !== undefined) closeTurn(group.scope, turnAt);
    }
  };

  /**
   * A group gone while it held a turn of its scope leaves that turn empty: the later turns move
   * up one and the chain ends one turn sooner (as a subscription's, subscriptions.ts), so the
   * groups left are not kept waiting for turns nobody takes (members who read alone until their
   * plan is known, then join their plan's group, leave such turns behind).
   */
  const closeTurn = (scope: string, turnAt: number) => {
    if (!ctx.turns) return;
    const { paceMs } = ctx.turns;
    for (const other of groups.values()) {
      if (other.scope !== scope || !other.reserved || other.inFlight) continue;
      const at = ctx.queue.dueAt(other.id);
      if (at !== undefined && at > turnAt) ctx.push(other, at - paceMs);
    }
    ctx.turns.scopeOf(scope).nextSlotAt -= paceMs;
  };

  const join = (sub: Sub, fingerprint: string): ReadGroup => {
    const id = `group:${sub.service}|${tierPart(sub)}|${fingerprint}`;
    let group = groups.get(id);
    if (!group) {
      group = {
        id, service: sub.service, fingerprint, tier: sub.tier, scope: ctx.scopeOf(sub.service), members: [],
        lastReaderId: undefined, lastStartAt: undefined, reserved: false, failures: 0, inFlight: false, removed: false,
      };
      groups.set(id, group);
    }
    group.members = [...group.members, sub].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    bySub.set(sub, group);
    byUser.set(sub.userId, (byUser.get(sub.userId) ?? new Set()).add(sub));
    return group;
  };

  const groupOf = (sub: Sub): ReadGroup | undefined => {
    const current = bySub.get(sub);
    if (current) return current;
    if (sub.removed) return undefined;
    const fingerprint = fingerprintOf(sub);
    return fingerprint === undefined ? undefined : join(sub, fingerprint);
  };

  const wake = (sub: Sub, due: number) => {
    const group = groupOf(sub);
    if (!group || group.inFlight || group.reserved) return;
    const queued = ctx.queue.dueAt(group.id);
    if (queued === undefined || due < queued) ctx.push(group, due);
  };

  return {
    get: (id) => groups.get(id),
    groupOf,
    onService: (service) => [...groups.values()].filter((g) => g.service === service),
    wake,
    leave,
    observe(reader, tier, due) {
      const group = bySub.get(reader);
      const shown = tier ?? reader.tier;
      const servesAll = group !== undefined && group.tier !== undefined && shown === group.tier;
      if (tier === undefined || reader.tier === tier) return servesAll;
      reader.tier = tier;
      if (!group || reader.removed) return servesAll;
      leave(reader);
      join(reader, group.fingerprint);
      wake(reader, due);
      return servesAll;
    },
    sync(userId, current) {
      const keep = new Set(current);
      for (const sub of [...(byUser.get(userId) ?? [])]) {
        if (sub.removed || !keep.has(sub)) leave(sub);
      }
      for (const sub of keep) {
        const group = bySub.get(sub);
        const fingerprint = fingerprintOf(sub);
        if (group && group.fingerprint === fingerprint && group.tier === sub.tier) continue;
        // A new filter is a new answer: the member moves, and its new group is due by its next turn.
        const next = group ? (ctx.queue.dueAt(group.id) ?? group.lastStartAt) : undefined;
        if (group) leave(sub);
        if (fingerprint === undefined) continue;
        join(sub, fingerprint);
        wake(sub, next ?? 0);
      }
    },
  };
}
