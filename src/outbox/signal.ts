/**
 * The waits of the outbox's loop: a signal that wakes it when work arrives or a call finishes,
 * and one shared timer for "look again at" so that many jobs arriving at once do not each start
 * a timer of their own.
 */
import type { Clock } from '../clock.js';

/** A promise that resolves on the next `notify`; waiting on it twice costs nothing. */
export class Signal {
  private promise!: Promise<void>;
  private release!: () => void;

  constructor() {
    this.reset();
  }

  wait(): Promise<void> {
    return this.promise;
  }

  notify(): void {
    this.release();
    this.reset();
  }

  private reset(): void {
    this.promise = new Promise((resolve) => (this.release = resolve));
  }
}

/** Sleeps on the clock, reusing a pending sleep that ends no later than the new target. */
export class SharedSleep {
  private pendingSleep: { until: number; promise: Promise<void> } | undefined;

  constructor(private readonly clock: Clock) {}

  sleepUntil(target: number, now: number): Promise<void> {
    const pending = this.pendingSleep;
    if (pending && pending.until > now && pending.until <= target) return pending.promise;
    const sleep = {
      until: target,
      promise: this.clock.sleep(target - now).then(() => {
        if (this.pendingSleep === sleep) this.pendingSleep = undefined;
      }),
    };
    this.pendingSleep = sleep;
    return sleep.promise;
  }
}
