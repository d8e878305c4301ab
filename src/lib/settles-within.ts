/**
 * Whether `promise` settles within `ms`: true when it fulfils in time, false when the time runs out
 * first (the promise goes on; a late result or failure is ignored). A failure in time is passed on.
 * The timer is cleared either way, so an early answer leaves nothing holding the process open.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
