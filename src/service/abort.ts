/**
 * Joining abort signals without `AbortSignal.any`: every call here joins a long-lived signal
 * (the client's shutdown), and on Node 20 `AbortSignal.any` keeps each joined signal reachable
 * from such a source until it aborts (nodejs/node#55351), i.e. one leak per request.
 */

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

/**
 * The signals of calls that all end when their owner closes. Each call gets a controller of its
 * own, kept in a set the owner aborts at once, instead of one more listener per call on a
 * long-lived signal: a read then costs one small controller, and nothing outlives it. Calls that
 * pass the same signal of their own (every poll of a scheduler run passes one) share one listener
 * on it, so joining and leaving costs no listener added and removed per call either.
 */
export class AbortGroup {
  private readonly members = new Set<AbortController>();
  /** The members joined with each caller's signal; the signal's one listener aborts them. */
  private readonly byCaller = new WeakMap<AbortSignal, Set<AbortController>>();
  private closedWith: { reason: unknown } | undefined;

  /** A signal that aborts when `caller` does (with its reason) or when the group is aborted. */
  join(caller: AbortSignal | undefined): LinkedSignal {
    const controller = new AbortController();
    if (this.closedWith) {
      controller.abort(this.closedWith.reason);
      return { signal: controller.signal, dispose: () => undefined };
    }
    if (caller?.aborted) {
      controller.abort(caller.reason);
      return { signal: controller.signal, dispose: () => undefined };
    }
    const withCaller = caller && this.callerSet(caller);
    withCaller?.add(controller);
    this.members.add(controller);
    return {
      signal: controller.signal,
      dispose: () => {
        this.members.delete(controller);
        withCaller?.delete(controller);
      },
    };
  }

  /** Aborts every joined call with `reason`; later joins start aborted. */
  abort(reason: unknown): void {
    this.closedWith ??= { reason };
    const members = [...this.members];
    this.members.clear();
    for (const controller of members) controller.abort(reason);
  }

  /** Calls joined and not yet disposed (tests). */
  get size(): number {
    return this.members.size;
  }

  /** The set of members following `caller`, with the one listener that ends them when it aborts. */
  private callerSet(caller: AbortSignal): Set<AbortController> {
    let set = this.byCaller.get(caller);
    if (!set) {
      const members = new Set<AbortController>();
      caller.addEventListener(
        'abort',
        () => {
          for (const controller of members) {
            this.members.delete(controller);
            controller.abort(caller.reason);
          }
          members.clear();
        },
        { once: true },
      );
      this.byCaller.set(caller, members);
      set = members;
    }
    return set;
  }
}
