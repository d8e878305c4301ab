/**
 * The scheduler's knobs and their defaults. Production runs on the defaults; tests and
 * benchmarks change a few (shorter windows, faster backoff) through `SchedulerOptions.tuning`.
 * Every other room of the scheduler reads the values it needs from here, never its own copy.
 */
import type { LoadFactorTuning } from './load-factor.js';
import { TOKEN_RENEW_MARGIN_MS } from '../service/tokens.js';
import { DEFAULT_TOKEN_RESERVE, HOUR_MS, TOKEN_TTL_MS } from './token-plan.js';

/** Knobs with sensible defaults; tests and benchmarks change them. */
export interface SchedulerTuning {
  /** Token lifetime, the length of one plan window. */
  tokenTtlMs: number;
  /** Token requests per hour left to the bot (/connect checks, renewal after a 401). */
  tokenReserve: number;
  /** A held token counts as usable only with at least this much life left before the client would renew it. */
  tokenSafetyMs: number;
  /** How long before its expiry the client renews a token (src/service/tokens.ts: the same value, not a copy). */
  clientRenewMarginMs: number;
  /**
   * Share of the read limit kept off polling altogether; default 0: the limiter hands a waiting
   * lookup the next slot, so unused lookup capacity goes to polling.
   */
  interactiveShare: number;
  /** Up to this share of the interval is added at random to each wait (small: it costs latency). */
  jitterRatio: number;
  /** First backoff after a transient failure; doubles per failure in a row. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** After a start, first reads (each with a token request) are spread to at most this many a second. */
  startupReadsPerSecond: number;
  /** Reads in flight at once, over all subscriptions. */
  maxConcurrentReads: number;
  /** The loop wakes at least this often (keeps `lastTickAt` fresh and a stop prompt). */
  maxSleepMs: number;
  /**
   * Reads are taken on a grid of this many ms (0: each at its own moment): the loop wakes once per
   * tick for every read due by then, and their answers come back together, instead of the process
   * waking once per read and once per answer. Waking costs far more CPU than the little work done
   * per wake. A read starts at most a tick later than due (never earlier, so no limit is touched),
   * and the next one is counted from when it was due (read-pace.ts), so the grid costs no reads
   * and, as each read's phase is all it moves, no alert latency.
   */
  tickMs: number;
  /** How long `stop()` waits for reads in flight before aborting them. */
  stopTimeoutMs: number;
  /** How often the token ledger is written to its file (when it changed). */
  ledgerSaveEveryMs: number;
  /** `lastGoodReadAt` is written to the store at most this often per subscription. */
  statusWriteEveryMs: number;
  /** How often the whole alert state is pruned. */
  pruneEveryMs: number;
  /** Entries of items not seen for this long are pruned (subscriptions paused or deleted long ago). */
  staleEntryMs: number;
  /**
   * LIMIT_SCOPE=address read groups: a member whose key has not read for its group this long reads
   * next when its plan lets it request a token, even if another member holds one, so every
   * member's access is checked by the service that often and no one key's tokens carry the group.
   */
  groupVerifyEveryMs: number;
  /** When and how fast poll intervals are stretched under overload. */
  loadFactor: Partial<LoadFactorTuning>;
}

export const DEFAULT_TUNING: SchedulerTuning = {
  tokenTtlMs: TOKEN_TTL_MS,
  tokenReserve: DEFAULT_TOKEN_RESERVE,
  tokenSafetyMs: 3_000,
  clientRenewMarginMs: TOKEN_RENEW_MARGIN_MS,
  interactiveShare: 0,
  jitterRatio: 0.01,
  backoffBaseMs: 5_000,
  backoffMaxMs: 5 * 60_000,
  startupReadsPerSecond: 200,
  maxConcurrentReads: 256,
  maxSleepMs: 1_000,
  tickMs: 50,
  stopTimeoutMs: 5_000,
  ledgerSaveEveryMs: 60_000,
  statusWriteEveryMs: 15_000,
  pruneEveryMs: 10 * 60_000,
  staleEntryMs: 24 * HOUR_MS,
  groupVerifyEveryMs: 15 * 60_000,
  loadFactor: {},
};
