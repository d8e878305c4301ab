/**
 * The scheduler's ports, both ways. `SchedulerPort` is what the bot may ask of the scheduler: the
 * bot never polls the service itself and the scheduler never touches grammY, so this narrow port
 * is the only link between them. `Notifier` is what the scheduler asks of the alerts side: it
 * hands over a read's diff events and the notices of paused subscriptions, and knows nothing of
 * formatting, quiet hours or Telegram (src/alerts/notifier.ts implements it; app.ts wires it).
 * `PollLimits` and `PollingClient` are what the loop asks of the service client: its limiter and
 * token cache, and the poll read (the `ServiceClient` fits; a shared, Redis-backed client could).
 * The due queue's port is `ScheduleQueue` (queue.ts).
 */
import type { ServiceClient } from '../service/client-types.js';
import type { Opportunity } from '../service/opportunity.js';
import type { Service } from '../service/services.js';
import type { UserRecord } from '../store/schema.js';
import type { DiffEvent } from './diff.js';

export interface ServiceCoverage {
  /** Share of the time this service is polled, 0..1, given the key's token budget. */
  share: number;
  /** Planned time between reads when covered, ms. */
  intervalMs: number;
  state: 'active' | 'paused' | 'blocked' | 'no-key';
  /** LIMIT_SCOPE=address: how many other users' subscriptions share these reads (same service, same filter). */
  sharedWith?: number;
  /** A draft filter waits for the token budget (drafts.ts): it is written at `nextTokenAt`. */
  draft?: true;
  /**
   * When the service may next get a token by the key's plan (now, when its window is open): its
   * next read, or a draft's write. Absent when unknown (not polled, or under LIMIT_SCOPE_TOKENS=address).
   */
  nextTokenAt?: number;
  /** The longest stretch of the hour with no token for it, ms (0: read all the time). */
  longestGapMs?: number;
}

export interface SchedulerPort {
  /** Re-reads the user's subscriptions from the store (after /filter, /pause, /resume, /forget, /connect, a block). */
  refreshUser(userId: number): void;
  /**
   * The coverage each of the user's active services gets; with `extra`, the coverage the user
   * would get if that service were added too (to explain the trade-off before saving).
   */
  coverage(userId: number, extra?: Service): Partial<Record<Service, ServiceCoverage>>;
  /**
   * The latest items read for the user (all services, or one), as last seen. In a cluster the
   * front asks the worker that polls the user, hence the promise.
   */
  latestItems(userId: number, service?: Service): Opportunity[] | Promise<Opportunity[]>;
}

/** Why the scheduler pauses a subscription and speaks up: faults only the user can fix. */
export type NoticeReason = 'auth' | 'forbidden';

/** What became of a draft filter (drafts.ts): written and live, or dropped because the service refused the key or its access. */
export type DraftOutcome = 'live' | NoticeReason;

/** One subscription: a user's key × a service, and its key in the alert state. */
export interface SubscriptionRef {
  userId: number;
  service: Service;
  /** `${userId}:${service}` (schema.ts `subscriptionKey`). */
  subKey: string;
  /**
   * Set on the first read after the filter was saved, resumed or the bot restarted: many new items
   * then are one summary, not a buzz each (alerts/first-read.ts).
   */
  firstRead?: boolean;
}

export interface NotifierStats {
  /** New alerts handed to the outbox since start. */
  alerts: number;
  /** Edits (moved, returned, gone) handed to the outbox since start. */
  edits: number;
  /** New items not alerted: muted event or snoozed filter. */
  skipped: number;
  /** Alerts held for quiet hours. */
  held: number;
  /** Notices (paused subscriptions) sent. */
  notices: number;
  /** Formatting or bookkeeping failures (logged). */
  failures: number;
  /** New alerts in the last minute. */
  alertsLastMinute: number;
  /** Loud re-alerts (replies to an alert whose profit rose) handed to the outbox since start. */
  reAlerts?: number;
}

/** What the scheduler hands its reads' outcomes to. */
export interface Notifier {
  /** Turns one subscription's diff events into alerts and edits. Never throws, never waits for Telegram. */
  notify(sub: SubscriptionRef, user: Readonly<UserRecord>, events: readonly DiffEvent[]): void;
  /** Tells the user (in their private chat, in their language) that a subscription was paused, and what to do. */
  notice(user: Readonly<UserRecord>, reason: NoticeReason, service: Service): void;
  /** Tells the user what became of their draft filter for `service` (a double that does not care may leave it out). */
  draft?(user: Readonly<UserRecord>, service: Service, outcome: DraftOutcome): void;
  stats(): NotifierStats;
  /** Resolves when every send and edit handed to the outbox so far has settled (tests, shutdown). */
  idle(): Promise<void>;
}

/**
 * What the loop asks of the client's limits and token cache, never sending anything: whether a
 * token is held and for how long, what the key's token limit has left, when a poll fits the read
 * limit, and how many token requests polling plans for a key (interactive use keeps to the rest).
 */
export type PollLimits = Pick<ServiceClient, 'hasValidToken' | 'budget' | 'pollFreeInMs' | 'setPollingTokens' | 'itemWindowMs'>;

/**
 * The client as the scheduler uses it: its limits, the poll read, and the write of a draft filter
 * (drafts.ts) (never waiting: `wait: false`).
 */
export type PollingClient = PollLimits & Pick<ServiceClient, 'readItems' | 'writeFilter'>;

/** Called with every read's items: notes the closing lines of placed selections (alerts/closing-lines.ts). */
export type RecordCloses = (sub: { userId: number; service: string }, items: readonly Opportunity[], now: number) => void;
