/**
 * A key's plan for a service, as the scheduler learns it from that key's own reads: odds hidden
 * (`masked`, no paid access) or shown (`full`). Under LIMIT_SCOPE=address a read is shared only
 * between members of one plan (read-groups.ts), so a member's plan must be known before anyone
 * else's read may serve it. It is kept in the subscription's stored status with a digest of the
 * key it was seen with, so a restart or a worker taking over the user does not make every member
 * read alone again to find it out; a new key starts unknown.
 */
import { createHash } from 'node:crypto';
import type { ItemsRead } from '../service/opportunity.js';
import type { ServiceStatus } from '../store/schema.js';

export type PlanTier = 'masked' | 'full';

/**
 * What a read shows of the reader's plan: masked when the envelope or an item says so, full when
 * the envelope said it is not or items came unmasked; undefined when it says nothing.
 */
export function readTier(read: Pick<ItemsRead, 'items' | 'masked' | 'maskStated'>): PlanTier | undefined {
  if (read.masked || read.items.some((item) => item.masked)) return 'masked';
  return read.maskStated === true || read.items.length > 0 ? 'full' : undefined;
}

/** The key's mark beside a stored plan: a digest, so the status names no access key. */
export function planKeyOf(accessKey: string): string {
  return createHash('sha256').update(`bb-plan|${accessKey}`).digest('hex').slice(0, 16);
}

/** The stored plan of a subscription read with `accessKey`; undefined when none is stored for that key. */
export function storedTier(status: Pick<ServiceStatus, 'plan'> | undefined, accessKey: string): PlanTier | undefined {
  const plan = status?.plan;
  return plan && plan.key === planKeyOf(accessKey) ? plan.tier : undefined;
}

/** The status change that stores `tier` as the plan seen with `accessKey`. */
export function planStatus(tier: PlanTier, accessKey: string): Pick<ServiceStatus, 'plan'> {
  return { plan: { tier, key: planKeyOf(accessKey) } };
}
