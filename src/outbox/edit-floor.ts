/**
 * The floor of the bot's second owed to edits and gone marks (options.ts `editsFloorPerSecond`):
 * while fewer than that many went in the last second, a waiting edit goes before new messages.
 */
import type { RateWindow } from './pacing.js';
import { SendTimes } from './pacing.js';

export class EditFloor {
  private readonly times: SendTimes;

  constructor(private readonly window: RateWindow) {
    this.times = new SendTimes(Math.max(1, window.limit));
  }

  /** Whether edits are owed their floor at `now`. */
  owed(now: number): boolean {
    return this.window.limit > 0 && this.times.nextAllowed(now, this.window) <= now;
  }

  /** An edit leaves at `at`; call the result with whether it was made and when its answer came (it counts from then). */
  spend(at: number): (called: boolean, answeredAt: number) => void {
    const stamp = this.times.record(at);
    return (called, answeredAt) => (called ? this.times.arrived(stamp, answeredAt) : this.times.forget(stamp));
  }
}
