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
