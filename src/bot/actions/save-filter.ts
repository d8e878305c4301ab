/**
 * Saving a filter: one write to the service, then the store, then the scheduler. Returns a
 * plain, serializable outcome (the filter builder calls it inside `conversation.external`).
 */
import { isServiceError, type ServiceErrorKind } from '../../service/errors.js';
import { filterSettingsSchema, type FilterSettings } from '../../service/filter-model.js';
import type { Service } from '../../service/services.js';
import type { BotRuntime } from '../deps.js';
import { userKeyRef } from '../../store/key-ref.js';

export type SaveOutcome =
  | { kind: 'saved' }
  | { kind: 'no_key' }
  /** The user's cap on filter writes: nothing was sent. */
  | { kind: 'capped'; waitMs: number }
  /**
   * `tokens`: the key's token requests were used up, not its filter writes. `userShare`: the user
   * holds their part of a budget every user of the bot shares (address scope).
   */
  | { kind: 'error'; errorKind: ServiceErrorKind; retryAfterMs: number | null; tokens?: true; userShare?: true };

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
    return {
      kind: 'error',
      errorKind: err.kind,
      retryAfterMs: err.details.retryAfterMs ?? null,
      ...(err.details.limit === 'tokens' && { tokens: true }),
      ...(err.details.share === 'user' && { userShare: true }),
    };
  }
  const now = rt.clock.now();
  rt.store.updateUser(userId, (draft) => {
    draft.filters[service] = { settings: checked, paused: false, pausedReason: null, savedAt: now };
  });
  rt.scheduler.refreshUser(userId);
  return { kind: 'saved' };
}
