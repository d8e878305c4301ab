/**
 * Dispatch: what the loop does with a due entry — a subscription, or under LIMIT_SCOPE=address a
 * read group (read-groups.ts) — read it now, or put it back for when it may be read. The checks,
 * in order: still wanted and owned (else the user is refreshed), the poll floor, the token plan
 * (token-gate.ts; a group asks it of each member in turn), the scope's 429 pause, the scope's
 * turn (subscriptions or groups of a host take the next free slot in order: round robin), and
 * the client's limiter, which is the truth: a read waits for its room rather than be refused.
 */
import type { Store } from '../store/port.js';
import type { PollingClient } from './port.js';
import { chooseReader, type ReadGroup, type ReadGroups } from './read-groups.js';
import type { Reads } from './reads.js';
import type { Sub, SubscriptionRegistry } from './subscriptions.js';
import type { TokenGate } from './token-gate.js';
import type { DraftWriter } from './drafts.js';

export interface DispatchContext {
  store: Pick<Store, 'getUser'>;
  client: Pick<PollingClient, 'pollFreeInMs'>;
  registry: Pick<SubscriptionRegistry, 'keyOf' | 'scopeOf'>;
  gate: Pick<TokenGate, 'eligibility'>;
  reads: Pick<Reads, 'start'>;
  isAllowed: (userId: number) => boolean;
  owns: (userId: number) => boolean;
  floorMs: number;
  paceMs: number;
  /** tuning.groupVerifyEveryMs */
  verifyEveryMs: number;
  schedule(sub: Sub, due: number): void;
  pushGroup(group: ReadGroup, due: number): void;
  refreshUser(userId: number): void;
  /** Present under LIMIT_SCOPE=address. */
  groups: ReadGroups | undefined;
  /** The drafts waiting for the token budget (drafts.ts): a subscription with one writes it instead of reading. */
  drafts: Pick<DraftWriter, 'pending' | 'start'>;
}

/** What a slot-taking entry (a subscription or a group) keeps. */
interface Turn {
  reserved: boolean;
  lastStartAt: number | undefined;
}

export function createDispatch(ctx: DispatchContext) {
  const { store, client, registry, gate, reads, isAllowed, owns, floorMs, paceMs } = ctx;

  /** Still wanted: the user there, not blocked, the filter active (or a draft waiting), the same key, allowed and owned. */
  const wanted = (sub: Sub): boolean => {
    const user = store.getUser(sub.userId);
    const filter = user?.filters[sub.service];
    const used = (filter && !filter.paused) || user?.drafts[sub.service] !== undefined;
    return Boolean(user && !user.blocked && used && user.key?.accessKey === sub.accessKey && isAllowed(user.id) && owns(user.id));
  };

  /**
   * The scope's side: its 429 pause and its turn. Returns when to come back, or undefined when the
   * read may go now. `wasReserved`: this entry holds the slot it is due at. Turns are counted from
   * `pacedAt`, the moment the entry was due, so the loop's grid does not drift a scope's pace.
   */
  const scopeTurn = (entry: Turn, scopeId: string, wasReserved: boolean, phaseMs: number, now: number, pacedAt: number): number | undefined => {
    const scope = registry.scopeOf(scopeId);
    if (scope.pausedUntil > now) return scope.pausedUntil + phaseMs;
    if (wasReserved) return undefined;
    if (scope.nextSlotAt > pacedAt) {
      // The scope is busy: take the next free turn (entries of a host are served in order).
      entry.reserved = true;
      const at = scope.nextSlotAt;
      scope.nextSlotAt += paceMs;
      return at;
    }
    scope.nextSlotAt = pacedAt + paceMs;
    return undefined;
  };

  /**
   * Takes one due subscription: reads it now, or puts it back for when it may be read. `pacedAt`:
   * the moment it was due (the loop takes it at `now`, up to a tick of its grid later).
   */
  const dispatchSub = (sub: Sub, now: number, pacedAt: number) => {
    if (!wanted(sub)) {
      ctx.refreshUser(sub.userId);
      return;
    }
    const wasReserved = sub.reserved;
    sub.reserved = false;
    sub.waitingForWindow = false;
    if (sub.lastStartAt !== undefined && now < sub.lastStartAt + floorMs) {
      ctx.schedule(sub, sub.lastStartAt + floorMs);
      return;
    }
    const ok = gate.eligibility(sub, registry.keyOf(sub.accessKey), now);
    if (!ok.ok) {
      sub.waitingForWindow = true;
      ctx.schedule(sub, Math.max(ok.at, now + 1));
      return;
    }
    // A draft is written with the token this window gives, before any read (the read follows it).
    if (ctx.drafts.pending(sub)) {
      ctx.drafts.start(sub, ok.acquire, ok.window);
      return;
    }
    const back = scopeTurn(sub, sub.scope, wasReserved, sub.phaseMs, now, pacedAt);
    if (back !== undefined) {
      ctx.schedule(sub, back);
      return;
    }
    // The limiter is the truth (a lookup may take the next slot): wait for its room, keeping the turn.
    const freeInMs = client.pollFreeInMs?.(sub.accessKey, sub.service) ?? 0;
    if (freeInMs > 0) {
      sub.reserved = true;
      ctx.schedule(sub, now + freeInMs);
      return;
    }
    reads.start(sub, pacedAt, ok.acquire, ok.window);
  };

  /** Takes one due read group: one member reads for all, or the group waits for its turn (`pacedAt` as above). */
  const dispatchGroup = (group: ReadGroup, now: number, pacedAt: number) => {
    // Members no longer wanted or owned leave (their refresh syncs the groups).
    for (const sub of [...group.members]) if (!wanted(sub)) ctx.refreshUser(sub.userId);
    if (group.removed || group.members.length === 0) return;
    const wasReserved = group.reserved;
    group.reserved = false;
    for (const sub of group.members) sub.waitingForWindow = false;
    if (group.lastStartAt !== undefined && now < group.lastStartAt + floorMs) {
      ctx.pushGroup(group, group.lastStartAt + floorMs);
      return;
    }
    const choice = chooseReader(group, now, ctx.verifyEveryMs, (sub) => gate.eligibility(sub, registry.keyOf(sub.accessKey), now));
    if (!choice.ok) {
      // No member may read now: a new plan (a refresh) wakes the group sooner.
      for (const sub of group.members) sub.waitingForWindow = true;
      ctx.pushGroup(group, Math.max(choice.at, now + 1));
      return;
    }
    const back = scopeTurn(group, group.scope, wasReserved, 0, now, pacedAt);
    if (back !== undefined) {
      ctx.pushGroup(group, back);
      return;
    }
    const freeInMs = client.pollFreeInMs?.(choice.reader.accessKey, group.service) ?? 0;
    if (freeInMs > 0) {
      group.reserved = true;
      ctx.pushGroup(group, now + freeInMs);
      return;
    }
    group.lastReaderId = choice.reader.id;
    reads.start(choice.reader, pacedAt, choice.acquire, choice.window, group);
  };

  return { dispatchSub, dispatchGroup };
}
