/**
 * The running bot as its starter holds it (`App`), whatever the process runs: the embedded bot or
 * a cluster role. `stop` runs the role's shutdown once, however often it is called.
 */
import type { Store } from '../store/port.js';

export interface App {
  readonly store: Store;
  /** Stops polling, drains the outbox for up to `drainMs`, flushes the store. Safe to call twice. */
  stop(drainMs?: number): Promise<void>;
  readonly healthPort: number | undefined;
}

export function appHandle(store: Store, healthPort: number | undefined, shutdown: (drainMs: number) => Promise<void>): App {
  let stopping: Promise<void> | undefined;
  return {
    store,
    healthPort,
    stop: (drainMs = 10_000) => (stopping ??= shutdown(drainMs)),
  };
}
