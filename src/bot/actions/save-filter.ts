/**
 * Saving a filter: one write to the service, then the store, then the scheduler. Returns a
 * plain, serializable outcome (the filter builder calls it inside `conversation.external`).
 *
 * A write the service's budget refuses (the key's token requests for the hour, the filter writes,
 * or the user's part of a budget every user shares) loses nothing: the build is kept as a draft
 * in the user record, and the scheduler, which holds the key's token budget, writes it as soon as
 * its plan gives the service a token (src/scheduler/drafts.ts) and tells the user it is live.
 */
import { isServiceError, type ServiceErrorKind } from '../../service/errors.js';
import { filterSettingsSchema, type FilterSettings } from '../../service/filter-model.js';
import type { Service } from '../../service/services.js';
import type { BotRuntime } from '../deps.js';
import { userKeyRef } from '../../store/key-ref.js';

export type SaveOutcome =
  | { kind: 'saved' }
  /**
   * Refused by the budget and kept as a draft: written by the scheduler at about `expectedAt`
   * (unknown: undefined). `tokens`: the key's token requests ran out (not the filter writes).
   */
  | { kind: 'draft'; expectedAt?: number; tokens?: true }
  | { kind: 'no_key' }
  /** The user's cap on filter writes: nothing was sent. */
  | { kind: 'capped'; waitMs: number }
  /** Any refusal but the budget's (which keeps a draft): nothing was saved. */
  | { kind: 'error'; errorKind: ServiceErrorKind };

export async function saveFilter(rt: BotRuntime, userId: number, service: Service, settings: FilterSettings): Promise<SaveOutcome> {
  const ref = userKeyRef(rt, rt.store.getUser(userId));
  if (!ref) return { kind: 'no_key' };
  const checked = filterSettingsSchema.parse(settings);
  const waitMs = await rt.caps.take('filter', userId, ref.accessKey);
  if (waitMs > 0) return { kind: 'capped', waitMs };
  try {
    await rt.client.writeFilter(ref, service, checked, { priority: 'interactive', wait: false, userId });
  } catch (err) {
    if (!isServiceError(err)) throw err;
    rt.logger.warn({ kind: err.kind, service }, 'filter write failed');
    if (err.kind === 'rate_limited') return keepDraft(rt, userId, service, checked, err.details.limit === 'tokens');
    return { kind: 'error', errorKind: err.kind };
  }
  const now = rt.clock.now();
  rt.store.updateUser(userId, (draft) => {
    draft.filters[service] = { settings: checked, paused: false, pausedReason: null, savedAt: now };
    // Written now: an older draft for the service would overwrite it later.
    delete draft.drafts[service];
  });
  rt.scheduler.refreshUser(userId);
  return { kind: 'saved' };
}

/** Keeps the refused build as the service's draft; the scheduler writes it when the budget allows. */
function keepDraft(rt: BotRuntime, userId: number, service: Service, settings: FilterSettings, tokens: boolean): SaveOutcome {
  const now = rt.clock.now();
  rt.store.updateUser(userId, (draft) => {
    draft.drafts[service] = { settings, createdAt: now };
  });
  rt.scheduler.refreshUser(userId);
  const expectedAt = rt.scheduler.coverage(userId)[service]?.nextTokenAt;
  return { kind: 'draft', ...(expectedAt !== undefined && { expectedAt }), ...(tokens && { tokens: true as const }) };
}
