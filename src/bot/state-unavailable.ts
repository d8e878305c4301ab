/**
 * The error a front's shared state (open questions, guided flows, caps: kept in Redis when
 * several fronts serve one bot) gives when it cannot be read or written. The bot fails safe on it
 * in one place (`bot.ts`'s error boundary): the user is told that nothing was done and to try again
 * in a moment, and a message whose meaning could not be checked is deleted, since it may be the
 * answer to a secret question asked on another front. Its message never holds a value of the state.
 */
export class StateUnavailableError extends Error {
  override readonly name = 'StateUnavailableError';
  constructor(what: string, cause: string) {
    super(`${what}: the fronts' shared state in Redis is unavailable (${cause})`);
  }
}

export function isStateUnavailable(err: unknown): err is StateUnavailableError {
  return err instanceof StateUnavailableError;
}
