/**
 * Joining abort signals without `AbortSignal.any`: every call here joins a long-lived signal
 * (the client's shutdown), and on Node 20 `AbortSignal.any` keeps each joined signal reachable
 * from such a source until it aborts (nodejs/node#55351), i.e. one leak per request.
 */
import { setMaxListeners } from 'node:events';

export interface LinkedSignal {
  signal: AbortSignal;
  /** Detaches from the sources; call when the work is over. */
  dispose(): void;
}

/** A signal that aborts with the reason of the first of `sources` to abort. */
export function linkSignals(...sources: (AbortSignal | undefined)[]): LinkedSignal {
  const controller = new AbortController();
  const present = sources.filter((s): s is AbortSignal => s !== undefined);
  const already = present.find((s) => s.aborted);
  if (already) {
    controller.abort(already.reason);
    return { signal: controller.signal, dispose: () => undefined };
  }
  const listeners = present.map((source) => {
    const onAbort = () => {
      dispose();
      controller.abort(source.reason);
    };
    source.addEventListener('abort', onAbort, { once: true });
    return { source, onAbort };
  });
  const dispose = () => {
    for (const { source, onAbort } of listeners) source.removeEventListener('abort', onAbort);
  };
  return { signal: controller.signal, dispose };
}

/** The calls joined with one caller's signal: they share one controller while any of them runs. */
interface CallerCalls {
  controller: AbortController;
  /** Calls joined and not yet disposed. */
  calls: number;
}

/**
 * The signals of calls that all end when their owner closes, without one more listener per call
 * on a long-lived signal. A call with no signal of its own gets a controller of its own, kept in a
 * set the owner aborts at once. Calls that pass the same signal of their own (every poll of a
 * scheduler run passes one) share one controller, with one listener on that signal: a read then
 * costs no controller, signal or listener of its own (they were a share of each read's CPU). A
 * shared signal aborts when the caller's does or the group is aborted while any of its calls is
 * joined; a call that is over no longer looks at it.
 */
export class AbortGroup {
  private readonly members = new Set<AbortController>();
  /** Callers' shared controllers with a call joined (the group's abort ends them). */
  private readonly active = new Set<CallerCalls>();
  private readonly byCaller = new WeakMap<AbortSignal, CallerCalls>();
  private closedWith: { reason: unknown } | undefined;

  /** A signal that aborts when `caller` does (with its reason) or when the group is aborted. */
  join(caller: AbortSignal | undefined): LinkedSignal {
    if (this.closedWith || caller?.aborted) {
      const controller = new AbortController();
      controller.abort(this.closedWith ? this.closedWith.reason : caller?.reason);
      return { signal: controller.signal, dispose: () => undefined };
    }
    if (!caller) {
      const controller = new AbortController();
      this.members.add(controller);
      return { signal: controller.signal, dispose: () => void this.members.delete(controller) };
    }
    const shared = this.callerCalls(caller);
    if (shared.calls++ === 0) this.active.add(shared);
    let disposed = false;
    return {
      signal: shared.controller.signal,
      dispose: () => {
        if (disposed || shared.controller.signal.aborted) return;
        disposed = true;
        if (--shared.calls === 0) this.active.delete(shared);
      },
    };
  }

  /** Aborts every joined call with `reason`; later joins start aborted. */
  abort(reason: unknown): void {
    this.closedWith ??= { reason };
    const members = [...this.members];
    const active = [...this.active];
    this.members.clear();
    this.active.clear();
    for (const controller of members) controller.abort(reason);
    for (const shared of active) {
      shared.calls = 0;
      shared.controller.abort(reason);
    }
  }

  /** Calls joined and not yet disposed (tests). */
  get size(): number {
    let n = this.members.size;
    for (const shared of this.active) n += shared.calls;
    return n;
  }

  /** The controller `caller`'s calls share, with the one listener that ends it when the caller aborts. */
  private callerCalls(caller: AbortSignal): CallerCalls {
    let shared = this.byCaller.get(caller);
    if (!shared) {
      const controller = new AbortController();
      // Every call of the caller in flight listens on it: hundreds at once are normal, not a leak.
      setMaxListeners(0, controller.signal);
      const calls: CallerCalls = { controller, calls: 0 };
      caller.addEventListener(
        'abort',
        () => {
          this.active.delete(calls);
          calls.calls = 0;
          controller.abort(caller.reason);
        },
        { once: true },
      );
      this.byCaller.set(caller, calls);
      shared = calls;
    }
    return shared;
  }
}

/** The callbacks waiting on each signal that `whenAborted` watches, behind one listener of its own. */
const watchers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` once when `signal` aborts; the returned function stops watching. Every read in
 * flight watches the same run's signal: a listener each would be an `addEventListener` and a
 * `removeEventListener` per read, each walking the signal's list of listeners (Node's EventTarget
 * looks for a duplicate on every add), where here it is one entry in a set.
 */
export function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  let waiting = watchers.get(signal);
  if (!waiting) {
    const fresh = new Set<() => void>();
    watchers.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        watchers.delete(signal);
        for (const callback of [...fresh]) callback();
        fresh.clear();
      },
      { once: true },
    );
    waiting = fresh;
  }
  const set = waiting;
  set.add(onAbort);
  return () => void set.delete(onAbort);
}

