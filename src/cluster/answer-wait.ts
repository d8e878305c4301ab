/**
 * How long a worker's call waits for the front's answer (remote-outbox.ts), and how its giving up is
 * told: behind a flood every call gives up, and that is the front's backlog at Telegram's pace, not
 * a fault, so it is logged once a minute with a count.
 */
import type { Logger } from '../logger.js';

/**
 * How long a call waits for the front's answer before it resolves without it. Long enough for an
 * alert's turn in a busy front (seconds, a chat's many alerts a minute); beyond it a send's message
 * id is read from its claim when needed, so nothing needs to be held for the front's whole backlog.
 */
export const ANSWER_WAIT_MS = 60_000;

/** A call's timeout is logged at most this often, with how many timed out since. */
const TIMEOUT_LOG_EVERY_MS = 60_000;

export class TimeoutLog {
  private unlogged = 0;
  private loggedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly logger: Logger,
    private readonly waitedMs: number,
  ) {}

  /** One call (of `where`) got no answer in time. */
  add(where: object): void {
    this.unlogged += 1;
    const now = Date.now();
    if (now - this.loggedAt < TIMEOUT_LOG_EVERY_MS) {
      this.logger.debug({ ...where, waitedMs: this.waitedMs }, 'alert stream: no answer from the front in time');
      return;
    }
    this.logger.warn(
      { calls: this.unlogged, waitedMs: this.waitedMs },
      "alert stream: no answer from the front in time (its backlog at Telegram's pace, or no front running); sends' message ids are read from their claims when needed",
    );
    this.unlogged = 0;
    this.loggedAt = now;
  }
}

/** Runs a caller's hook; what it throws is its own business, not the outbox's. */
export function noThrow(hook: () => void): void {
  try {
    hook();
  } catch {
    // The hook logs its own failures.
  }
}
