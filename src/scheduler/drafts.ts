/**
 * Drafts: filters a user built whose write the service's budget refused at 💾 Save (the key's
 * token requests for the hour were spent keeping their other services read). The bot keeps the
 * build in the user record (`drafts`) instead of throwing it away, and the scheduler — the one
 * that holds the key's token budget, in a cluster the worker that owns the user — writes it as
 * soon as the budget allows: the draft's service is part of the key's token plan (subscriptions.ts),
 * so its window comes like any other service's, and the token the write takes then serves its
 * first reads too. Written, the draft becomes the service's filter and the user is told it is live;
 * a key the service refuses (401, 403) drops the draft and the user is told why.
 *
 * The write races nothing: a draft replaced by a newer save while it was out (another
 * `createdAt`) stays, and the next turn writes the newer one.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { isServiceError } from '../service/errors.js';
import type { Store } from '../store/port.js';
import type { DraftOutcome, Notifier, PollingClient } from './port.js';
import type { Reads } from './reads.js';
import type { SchedulerCounters } from './stats.js';
import type { Sub, SubscriptionRegistry } from './subscriptions.js';
import type { TokenGate } from './token-gate.js';
import type { TokenLedger } from './token-ledger.js';

export interface DraftWriterContext {
  client: Pick<PollingClient, 'writeFilter'>;
  clock: Clock;
  log: Logger;
  store: Pick<Store, 'getUser' | 'updateUser'>;
  notifier: Pick<Notifier, 'draft'>;
  ledger: Pick<TokenLedger, 'record'>;
  gate: Pick<TokenGate, 'ledgerName'>;
  counters: SchedulerCounters;
  registry: Pick<SubscriptionRegistry, 'refresh'>;
  reads: Pick<Reads, 'track' | 'failed' | 'signal'>;
  floorMs: number;
  schedule(sub: Sub, due: number): void;
  isRunning(): boolean;
}

export interface DraftWriter {
  /** Whether the subscription's user has a draft for its service waiting to be written. */
  pending(sub: Sub): boolean;
  /** Writes the draft now; `acquire`: the write requests the window's token (recorded in the ledger). */
  start(sub: Sub, acquire: boolean, window: number): void;
}

export function createDraftWriter(ctx: DraftWriterContext): DraftWriter {
  const { client, clock, log, store, notifier } = ctx;

  /** The draft becomes the service's filter, unless a newer save replaced it meanwhile. */
  const promote = (sub: Sub, createdAt: number): boolean => {
    let promoted = false;
    const updated = store.updateUser(sub.userId, (draft) => {
      const waiting = draft.drafts[sub.service];
      if (!waiting || waiting.createdAt !== createdAt) return;
      draft.filters[sub.service] = { settings: waiting.settings, paused: false, pausedReason: null, savedAt: clock.now() };
      delete draft.drafts[sub.service];
      promoted = true;
    });
    if (promoted) notifier.draft?.(updated, sub.service, 'live');
    return promoted;
  };

  /** The service refuses the key (401) or its access to the service (403): the draft cannot be written. */
  const drop = (sub: Sub, createdAt: number, outcome: DraftOutcome) => {
    let dropped = false;
    const updated = store.updateUser(sub.userId, (draft) => {
      if (draft.drafts[sub.service]?.createdAt !== createdAt) return;
      delete draft.drafts[sub.service];
      dropped = true;
    });
    if (dropped) notifier.draft?.(updated, sub.service, outcome);
  };

  return {
    pending: (sub) => store.getUser(sub.userId)?.drafts[sub.service] !== undefined,

    start(sub, acquire, window) {
      const waiting = store.getUser(sub.userId)?.drafts[sub.service];
      if (!waiting) return;
      if (acquire) {
        sub.tokenWindow = window;
        sub.lastAcquireAt = clock.now();
        ctx.ledger.record(ctx.gate.ledgerName(sub.accessKey), sub.lastAcquireAt);
        ctx.counters.tokenRequests(1);
      }
      sub.inFlight = true;
      sub.lastStartAt = clock.now();
      const signal = ctx.reads.signal();
      ctx.reads.track((async () => {
        let next: number | undefined;
        try {
          await client.writeFilter(sub.keyRef, sub.service, waiting.settings, { wait: false, priority: 'poll', signal });
          sub.failures = 0;
          log.info({ subKey: sub.subKey }, 'a draft filter was written: it is live');
          if (!promote(sub, waiting.createdAt)) log.debug({ subKey: sub.subKey }, 'the draft changed while it was written: the newer one goes next');
          // Its first read comes at once, on the token the write took.
          next = clock.now();
          ctx.registry.refresh(sub.userId, ctx.floorMs);
        } catch (err) {
          if (signal.aborted || sub.removed) return;
          if (isServiceError(err) && (err.kind === 'auth' || err.kind === 'forbidden')) {
            log.info({ subKey: sub.subKey, kind: err.kind }, 'a draft filter cannot be written: dropped, the user is told');
            drop(sub, waiting.createdAt, err.kind);
            ctx.registry.refresh(sub.userId, ctx.floorMs);
            next = clock.now();
            return;
          }
          next = ctx.reads.failed(sub, err, acquire);
        } finally {
          sub.inFlight = false;
          if (next !== undefined && ctx.isRunning() && !sub.removed) ctx.schedule(sub, next);
        }
      })());
    },
  };
}
