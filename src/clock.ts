/**
 * Time as a dependency: production uses the system clock; tests inject a manual one so that
 * five-minute tokens and hourly budgets are exercised in milliseconds.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Resolves after `ms` of this clock's time. When `signal` aborts first, it resolves at once and
   * drops its timer (callers check `signal.aborted`), so a long wait never outlives a shutdown.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * A clock that only moves when told to. `sleep` resolves once `advance` passes its deadline,
 * in deadline order, so code under test sees time move exactly as it would for real.
 */
export class ManualClock implements Clock {
  private current: number;
  private sleepers: { at: number; resolve: () => void }[] = [];

  constructor(start = Date.UTC(2026, 0, 3, 10, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        resolve();
      };
      const sleeper = {
        at: this.current + Math.max(0, ms),
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      this.sleepers.sort((a, b) => a.at - b.at);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Moves time forward by `ms`, waking sleepers one by one and letting their work run. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      const next = this.sleepers[0];
      if (!next || next.at > target) break;
      this.sleepers.shift();
      this.current = Math.max(this.current, next.at);
      next.resolve();
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
  }

  /** How many sleepers wait; lets tests assert that nothing is left pending. */
  get pending(): number {
    return this.sleepers.length;
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
}
