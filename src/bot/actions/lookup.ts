/**
 * /item, /event and the "all items of this event" button: the service's by-id and per-event
 * reads (interactive, never waiting for the limiter), falling back to the latest items the
 * scheduler holds when the service does not offer the read or cannot answer now.
 */
import type { Opportunity } from '../../service/opportunity.js';
import { isServiceError, type ServiceErrorKind } from '../../service/errors.js';
import { SERVICES, type Service } from '../../service/services.js';
import type { UserRecord } from '../../store/schema.js';
import type { BotRuntime } from '../deps.js';
import { userKeyRef } from '../../store/key-ref.js';

export type LookupResult =
  | { kind: 'found'; items: Opportunity[]; source: 'service' }
  /** From the scheduler's latest list; `reason` is why the service read did not answer. */
  | { kind: 'found'; items: Opportunity[]; source: 'latest'; reason: ServiceErrorKind }
  /** Every service asked answered, and none had it (nor the latest list). */
  | { kind: 'not_found' }
  /**
   * Some services answered "no such id", others could not be asked (`reason`, `waitMs` as for
   * could_not_look): the answer names which were searched and which were not, never a plain "not found".
   */
  | { kind: 'partly'; searched: Service[]; unasked: Service[]; reason: ServiceErrorKind; waitMs: number | undefined; userShare?: true }
  /**
   * No service answered (its limit, ours, a timeout): nothing is known about the id. `waitMs`
   * is when the limit frees, when one said so.
   */
  | { kind: 'could_not_look'; reason: ServiceErrorKind; waitMs: number | undefined; userShare?: true }
  | { kind: 'no_key' }
  /** The user's cap on lookups: nothing was read. */
  | { kind: 'capped'; waitMs: number }
  | { kind: 'need_service' };

export interface LookupRequest {
  what: 'item' | 'event';
  id: string;
  service: Service | undefined;
}

async function candidates(rt: BotRuntime, user: Readonly<UserRecord>, req: LookupRequest): Promise<Service[]> {
  if (req.service) return [req.service];
  const latest = await rt.scheduler.latestItems(user.id);
  const hit = latest.find((o) => (req.what === 'item' ? o.id === req.id : o.event.id === req.id));
  if (hit) return [hit.service];
  return SERVICES.filter((s) => user.filters[s] !== undefined);
}

async function fromLatest(rt: BotRuntime, userId: number, req: LookupRequest, services: Service[]): Promise<Opportunity[]> {
  const all = (await Promise.all(services.map((s) => rt.scheduler.latestItems(userId, s)))).flat();
  return all.filter((o) => (req.what === 'item' ? o.id === req.id : o.event.id === req.id));
}

/** Severity order for why services could not be asked (the worst is said). */
const REASON_ORDER: ServiceErrorKind[] = ['rate_limited', 'timeout', 'server', 'malformed', 'forbidden', 'auth'];

export async function lookup(rt: BotRuntime, user: Readonly<UserRecord> | undefined, req: LookupRequest): Promise<LookupResult> {
  const ref = userKeyRef(rt, user);
  if (!user || !ref) return { kind: 'no_key' };
  const services = await candidates(rt, user, req);
  if (services.length === 0) return { kind: 'need_service' };
  const waitMs = await rt.caps.take('lookup', user.id, ref.accessKey);
  if (waitMs > 0) return { kind: 'capped', waitMs };
  // Why the services that gave no answer gave none. It used to start at 'not_found' and take the
  // worst error of any service, so one service answering "no such id" while another was held back
  // by a limit (the poller's share, the token budget) said "not found (the request limit was
  // reached)": the limit's words on a lookup the limit had not stopped, and a not-found that was a guess.
  let reason: ServiceErrorKind | undefined;
  // Services that gave an answer (found, or "no such id"), and those that could not be asked.
  const searched: Service[] = [];
  const unasked: Service[] = [];
  let waitFor: number | undefined;
  // The user holds their part of a read budget every user shares (address scope): they are told so.
  let userShare = false;
  for (const service of services) {
    try {
      const opts = { priority: 'interactive', wait: false, userId: user.id } as const;
      const items =
        req.what === 'item'
          ? [await rt.client.readItem(ref, service, req.id, opts)]
          : (await rt.client.readEventItems(ref, service, req.id, opts)).items;
      if (items.length > 0) return { kind: 'found', items, source: 'service' };
      searched.push(service);
    } catch (err) {
      if (!isServiceError(err)) throw err;
      if (err.kind === 'not_found') {
        searched.push(service);
        continue;
      }
      unasked.push(service);
      const retry = err.details.retryAfterMs;
      if (err.kind === 'rate_limited' && retry !== undefined) waitFor = waitFor === undefined ? retry : Math.min(waitFor, retry);
      if (err.kind === 'rate_limited' && err.details.share === 'user') userShare = true;
      if (reason === undefined || REASON_ORDER.indexOf(err.kind) > REASON_ORDER.indexOf(reason)) reason = err.kind;
    }
  }
  const latest = await fromLatest(rt, user.id, req, services);
  if (latest.length > 0) return { kind: 'found', items: latest, source: 'latest', reason: reason ?? 'not_found' };
  if (reason === undefined) return { kind: 'not_found' };
  const share = userShare ? { userShare: true as const } : {};
  if (searched.length === 0) return { kind: 'could_not_look', reason, waitMs: waitFor, ...share };
  return { kind: 'partly', searched, unasked, reason, waitMs: waitFor, ...share };
}

/**
 * One item of an alert the owner had: as the scheduler last read it (no service call, no cap), or
 * looked up when it is no longer in the latest read. The buttons under an alert or a summary use it.
 */
export async function alertItem(rt: BotRuntime, ownerId: number, service: Service, itemId: string): Promise<{ req: LookupRequest; result: LookupResult }> {
  const req = { what: 'item' as const, id: itemId, service };
  const held = (await rt.scheduler.latestItems(ownerId, service)).find((o) => o.id === itemId);
  const result: LookupResult = held ? { kind: 'found', items: [held], source: 'service' } : await lookup(rt, rt.store.getUser(ownerId), req);
  return { req, result };
}
