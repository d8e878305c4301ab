/**
 * Backpressure for the scheduler. When the process cannot keep up (more subscriptions than its
 * CPU can read at the configured interval), due entries pile up, reads wait in line, memory
 * grows and every user's alerts come late and irregularly. Instead, every subscription's poll
 * interval is stretched by one shared factor, so that the work asked matches what the process
 * can do: everyone is polled a little less often, evenly, and /status says so.
 *
 * The signal is how late due entries are taken from the queue (their lag): it rises with CPU
 * saturation, event-loop delay and the in-flight cap alike, and it is measured with the
 * scheduler's own clock, so tests drive it with a ManualClock.
 *
 * The factor rises fast (a backlog grows every second it is not met) and falls slowly, only
 * after the lag has stayed low for a while: a stretched interval takes a whole interval to show
 * its effect, and lowering too eagerly would just bring the overload back (hysteresis between
 * the "behind" and "room" thresholds keeps it from flapping).
 */

/** Knobs of the load factor; the defaults suit a 5-second poll interval. */
export interface LoadFactorTuning {
  /** Lag is judged over windows of this length (ms). */
  windowMs: number;
  /** Fewer dispatches than this in a window say nothing either way (an idle or barely used scheduler). */
  minSamples: number;
  /** Mean lag in a window above which the scheduler is behind (ms). */
  behindLagMs: number;
  /** Mean lag in a window below which there is room to speed up again (ms). */
  roomLagMs: number;
  /** A window whose lag is below this share of the previous one's is draining its backlog: no raise. */
  drainingRatio: number;
  /** Multiplier applied on each window found behind. */
  raiseBy: number;
  /** Multiplier (< 1) applied on each window with room, once calm long enough. */
  lowerBy: number;
  /** How long the lag must have stayed below `roomLagMs` before lowering starts (ms). */
  calmMs: number;
  /** The factor never exceeds this: past it, users would be better told the bot is down. */
  maxFactor: number;
}

export const DEFAULT_LOAD_FACTOR_TUNING: LoadFactorTuning = {
  windowMs: 1_000,
  minSamples: 5,
  behindLagMs: 100,
  roomLagMs: 20,
  drainingRatio: 0.9,
  raiseBy: 1.25,
  lowerBy: 0.95,
  calmMs: 15_000,
  maxFactor: 8,
};

/** The shared stretch of poll intervals, fed with the lag of each dispatch. */
export class LoadFactor {
  private readonly tuning: LoadFactorTuning;
  private current = 1;
  private windowStart: number | undefined;
  private lagSum = 0;
  private samples = 0;
  private previousMean = 0;
  /** Since when the lag has been low; undefined while it is not. */
  private calmSince: number | undefined;

  constructor(tuning: Partial<LoadFactorTuning> = {}) {
    this.tuning = { ...DEFAULT_LOAD_FACTOR_TUNING, ...tuning };
  }

  /** The factor (≥ 1) by which every poll interval is stretched now. */
  get factor(): number {
    return this.current;
  }

  /** Records how late (ms) an entry was taken from the queue at `now`. */
  observe(lagMs: number, now: number): void {
    this.tick(now);
    this.lagSum += Math.max(0, lagMs);
    this.samples += 1;
  }

  /** Closes the window when its time is up; call it on every turn of the loop, busy or idle. */
  tick(now: number): void {
    if (this.windowStart === undefined) this.windowStart = now;
    if (now - this.windowStart < this.tuning.windowMs) return;
    this.judge(now);
    this.windowStart = now;
    this.lagSum = 0;
    this.samples = 0;
  }

  private judge(now: number): void {
    const t = this.tuning;
    // A quiet window is room: nothing is waiting (the factor itself may be what keeps it quiet,
    // hence the slow descent).
    const mean = this.samples >= t.minSamples ? this.lagSum / this.samples : 0;
    const previous = this.previousMean;
    this.previousMean = mean;
    if (mean > t.behindLagMs) {
      // Behind only when it lasts and does not shrink: one slow second (a GC pause) is noise, and a
      // backlog already draining (the start-up burst) needs no stretching, just time.
      if (previous > t.behindLagMs && mean >= previous * t.drainingRatio) {
        this.current = Math.min(t.maxFactor, this.current * t.raiseBy);
      }
      this.calmSince = undefined;
      return;
    }
    if (mean >= t.roomLagMs) {
      // Between the thresholds: hold, and the calm has to start over.
      this.calmSince = undefined;
      return;
    }
    this.calmSince ??= now;
    if (this.current > 1 && now - this.calmSince >= t.calmMs) {
      this.current = Math.max(1, this.current * t.lowerBy);
    }
  }
}
