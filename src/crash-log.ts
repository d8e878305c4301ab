/**
 * The process's last word on an error nothing caught: an uncaught exception or an unhandled
 * rejection is logged once through the scrubbing logger, at fatal, and the process exits with 1.
 * Without this, Node's default printer would `util.inspect` the error, and a grammY HttpError's
 * inner FetchError carries the Bot API URL with the bot token (audit 3, L3).
 */
import type { Logger } from './logger.js';

/** Installs both handlers for `logger`; `exit` is the process's own unless a test hands another. */
export function installCrashLog(logger: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  let ended = false;
  const end = (err: unknown, event: 'uncaughtException' | 'unhandledRejection') => {
    // A second error while the first is logged must not print past the logger either.
    if (ended) return;
    ended = true;
    try {
      logger.fatal({ err, event }, event === 'uncaughtException' ? 'an error nobody caught: stopping' : 'a promise failed and nobody handled it: stopping');
    } finally {
      // pino writes synchronously to its destination here, so the line is out before the exit.
      exit(1);
    }
  };
  process.on('uncaughtException', (err) => end(err, 'uncaughtException'));
  process.on('unhandledRejection', (reason) => end(reason, 'unhandledRejection'));
}
