/**
 * The one log capture of the tests: a real pino logger (with the project's redaction and
 * serializers) whose every record is kept in memory, so a test can search what was logged, read it
 * as records, or prove that a secret never reached a line.
 */
import { createLogger, type Logger } from '../../src/logger.js';

/** What `captureLogs` hands a test. */
export interface CapturedLogs {
  logger: Logger;
  /** One JSON line per record, in order (a live array: it grows as the code logs). */
  lines: string[];
  /** Everything logged so far as one string. */
  text(): string;
  /** Every record parsed. */
  records(): Record<string, unknown>[];
}

/** A logger at `level` (default debug, so nothing a test may look for is filtered out) that keeps its output. */
export function captureLogs(level: 'trace' | 'debug' | 'info' = 'debug'): CapturedLogs {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
  return {
    logger,
    lines,
    text: () => lines.join(''),
    records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** pino's level number for warn. */
export const WARN = 40;
