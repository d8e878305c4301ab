/**
 * What the bot may ask of the scheduler. The bot never polls the service itself and the
 * scheduler never touches grammY: this narrow port is the only link between them.
 */
import type { Opportunity } from '../service/opportunity.js';
import type { Service } from '../service/services.js';

export interface ServiceCoverage {
  /** Share of the time this service is polled, 0..1, given the key's token budget. */
  share: number;
  /** Planned time between reads when covered, ms. */
  intervalMs: number;
  state: 'active' | 'paused' | 'blocked' | 'no-key';
}

export interface SchedulerPort {
  /** Re-reads the user's subscriptions from the store (after /filter, /pause, /resume, /forget, /connect, a block). */
  refreshUser(userId: number): void;
  /**
   * The coverage each of the user's active services gets; with `extra`, the coverage the user
   * would get if that service were added too (to explain the trade-off before saving).
   */
  coverage(userId: number, extra?: Service): Partial<Record<Service, ServiceCoverage>>;
  /** The latest items read for the user (all services, or one), as last seen. */
  latestItems(userId: number, service?: Service): Opportunity[];
}
