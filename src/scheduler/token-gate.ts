/**
 * The token gate: whether a subscription may be read now without breaking the token plan, and
 * whether that read will request a token. Pure given its inputs — the subscription's token
 * bookkeeping, its key's plan, what the client says of the held token and the key's budget, and
 * the ledger's count of the last hour — so it is tested without the loop (test/scheduler/token-gate.test.ts).
 *
 * The rules, in order:
 * - a token the client holds, with enough life left that the client will not renew it mid-read,
 *   is used in any window; one about to be renewed waits until it lapses (a renewal must be a
 *   planned request);
 * - otherwise a token is requested only in a window the key's plan gives the service, at most
 *   once per window, while the ledger's rolling hour has room and the client's token limit too;
 * - under LIMIT_SCOPE_TOKENS=address there is one budget for the whole bot (address-turns.ts):
 *   a subscription requests a token only in the window it was given a turn, and `grantTurns`
 *   hands each window's turns out once, at its start.
 * A refusal says when to look again (`at`): the next window of the service, the moment the
 * oldest request of the hour ages out, or when the held token lapses.
 */
import type { ServiceClient } from '../service/client-types.js';
import type { Service } from '../service/services.js';
import { subscriptionKey } from '../store/schema.js';
import type { AddressTokenTurns, TurnMember } from './address-turns.js';
import type { TokenLedger } from './token-ledger.js';
import { HOUR_MS, isActiveIn, nextActiveWindow, type TokenPlan } from './token-plan.js';

/** Ok: read now (requesting a token when `acquire`) in window `window`; else look again at `at`. */
export type Eligibility = { ok: true; acquire: boolean; window: number } | { ok: false; at: number };

/** The subscription's side of the gate. */
export interface GateSubscription {
  accessKey: string;
  service: Service;
  /** Its fixed offset within a window. */
  phaseMs: number;
  /** The window in which it last requested a token. */
  tokenWindow: number | undefined;
  /** LIMIT_SCOPE_TOKENS=address: the window of its last turn. */
  grantWindow: number | undefined;
}

/** The key's side of the gate: its plan and where its windows start. */
export interface GateKey {
  accessKey: string;
  plan: TokenPlan;
  offsetMs: number;
}

/** A subscription competing for a turn of the shared budget. */
export interface TurnCandidate extends TurnMember {
  /** `subscriptionKey(userId, service)`. */
  id: string;
  failures: number;
  grantWindow: number | undefined;
}

export interface TokenGateOptions {
  /** What the client says of held tokens and the key's token limit. */
  client: Pick<ServiceClient, 'hasValidToken' | 'budget'>;
  /** The token requests of the last hour. */
  ledger: Pick<TokenLedger, 'count' | 'oldest'>;
  /** One window: the token lifetime. */
  windowMs: number;
  /** A held token is usable only with this much life left before the client renews it. */
  tokenSafetyMs: number;
  /** How long before expiry the client renews a token. */
  clientRenewMarginMs: number;
  /** Present under LIMIT_SCOPE_TOKENS=address: the one shared budget. */
  turns?: AddressTokenTurns;
}

export interface TokenGate {
  /** Whether a read of `sub` now stays within the plan; `key` is undefined when the key is not polled. */
  eligibility(sub: GateSubscription, key: GateKey | undefined, now: number): Eligibility;
  /** The ledger's name for the budget a key's requests count against. */
  ledgerName(accessKey: string): string;
  /**
   * LIMIT_SCOPE_TOKENS=address: at the first call in a window, hands its turns out among the
   * candidates (setting their `grantWindow`) and returns those given one; otherwise nothing.
   * `dueAt` says when a candidate is next due: one backing off past the window is passed over.
   */
  grantTurns<S extends TurnCandidate>(now: number, candidates: Iterable<S>, dueAt: (id: string) => number | undefined): S[];
}

/** The ledger's name for the one token budget shared by every key under LIMIT_SCOPE_TOKENS=address. */
const ADDRESS_POOL = '\u0000address';

export function createTokenGate(opts: TokenGateOptions): TokenGate {
  const { client, ledger, turns } = opts;
  const W = opts.windowMs;
  let grantedWindow: number | undefined;

  const windowAt = (key: GateKey, t: number) => Math.floor((t - key.offsetMs) / W);
  const windowStart = (key: GateKey, index: number) => index * W + key.offsetMs;

  /** The start of the next window in which the subscription holds a token, after window `from`. */
  const nextWindowAt = (key: GateKey, sub: GateSubscription, from: number, now: number): number => {
    const next = nextActiveWindow(key.plan, sub.service, from);
    // No window at all (a budget of zero): look again in a cycle; a refresh replans sooner.
    return next === undefined ? now + key.plan.cycleMs : windowStart(key, next) + sub.phaseMs;
  };

  /** A token the client holds and will not renew mid-read: free to use, in any window. */
  const heldToken = (sub: GateSubscription, now: number): { state: 'held' | 'none' } | { state: 'lapsing'; lapsesAt: number } => {
    if (!client.hasValidToken(sub.accessKey, sub.service)) return { state: 'none' };
    const left = client.budget(sub.accessKey, sub.service).tokenExpiresInMs - opts.clientRenewMarginMs;
    if (left >= opts.tokenSafetyMs) return { state: 'held' };
    return { state: 'lapsing', lapsesAt: now + Math.max(250, left + 1) };
  };

  /** LIMIT_SCOPE_TOKENS=address: a token only on the subscription's turn, within the one shared budget. */
  const addressEligibility = (sub: GateSubscription, now: number, turns: AddressTokenTurns): Eligibility => {
    const window = Math.floor(now / W);
    const held = heldToken(sub, now);
    if (held.state === 'held') return { ok: true, acquire: false, window };
    if (held.state === 'lapsing') return { ok: false, at: held.lapsesAt };
    // Parked until its next turn: the grant wakes it.
    if (sub.grantWindow !== window || sub.tokenWindow === window) return { ok: false, at: now + turns.windowsPerCycle * W };
    if (ledger.count(ADDRESS_POOL, now) >= turns.budget || client.budget(sub.accessKey, sub.service).tokensLeft <= 0) {
      const free = (ledger.oldest(ADDRESS_POOL, now) ?? now) + HOUR_MS + 1;
      return { ok: false, at: Math.floor(free / W) === window ? free : now + turns.windowsPerCycle * W };
    }
    return { ok: true, acquire: true, window };
  };

  return {
    eligibility(sub, key, now) {
      if (turns) return addressEligibility(sub, now, turns);
      if (!key) return { ok: false, at: now + W };
      const window = windowAt(key, now);
      const held = heldToken(sub, now);
      if (held.state === 'held') return { ok: true, acquire: false, window };
      // About to be renewed: a renewal must be a planned request, so wait until the token lapses.
      if (held.state === 'lapsing') return { ok: false, at: held.lapsesAt };
      if (!isActiveIn(key.plan, sub.service, window) || sub.tokenWindow === window) {
        return { ok: false, at: nextWindowAt(key, sub, window + 1, now) };
      }
      if (ledger.count(key.accessKey, now) >= key.plan.budget) {
        // The rolling hour is full (a plan change, a restart, a retried token): wait for the oldest to age out.
        const free = (ledger.oldest(key.accessKey, now) ?? now) + HOUR_MS + 1;
        return { ok: false, at: windowAt(key, free) === window ? free : nextWindowAt(key, sub, window + 1, now) };
      }
      if (client.budget(sub.accessKey, sub.service).tokensLeft <= 0) {
        // The bot's own token requests used more than the reserve: leave the rest of this window to them.
        return { ok: false, at: nextWindowAt(key, sub, window + 1, now) };
      }
      return { ok: true, acquire: true, window };
    },

    ledgerName: (accessKey) => (turns ? ADDRESS_POOL : accessKey),

    grantTurns<S extends TurnCandidate>(now: number, candidates: Iterable<S>, dueAt: (id: string) => number | undefined): S[] {
      const window = Math.floor(now / W);
      if (!turns || window === grantedWindow) return [];
      grantedWindow = window;
      const windowEnd = (window + 1) * W;
      const members: S[] = [];
      const byKey = new Map<string, S>();
      for (const sub of candidates) {
        byKey.set(sub.id, sub);
        // A subscription backing off past this window would waste the turn.
        if (sub.failures > 0 && (dueAt(sub.id) ?? 0) >= windowEnd) continue;
        members.push(sub);
      }
      const granted: S[] = [];
      for (const { userId, service } of turns.grant(window, members)) {
        const sub = byKey.get(subscriptionKey(userId, service));
        if (!sub) continue;
        sub.grantWindow = window;
        granted.push(sub);
      }
      return granted;
    },
  };
}
