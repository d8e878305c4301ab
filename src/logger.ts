/**
 * pino with secrets redacted, as JSON lines for a log collector or as pretty, coloured lines
 * for a person at a terminal (LOG_FORMAT). Redaction happens in pino before either format, so
 * both carry the same censored values. Redaction works on known paths; `redactSecrets` also
 * scrubs free text (messages, error messages, URLs) so that a key or token that slipped into a
 * string is cut.
 */
import { pino, type Logger, type LoggerOptions, type DestinationStream } from 'pino';
import pinoPretty from 'pino-pretty';

export type { Logger };

/** `pretty`: one coloured line per event for a terminal; `json`: one JSON object per line. */
export type LogFormat = 'pretty' | 'json';

const SECRET_PATHS = [
  'secret',
  'secretKey',
  'accessSecret',
  'access_secret_key',
  'token',
  'accessToken',
  'access_token',
  'botToken',
  'BOT_TOKEN',
  'ENCRYPTION_KEY',
  'TELEGRAM_WEBHOOK_SECRET',
  'webhookSecret',
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  'req.headers.authorization',
  'config.BOT_TOKEN',
  'config.ENCRYPTION_KEY',
  'config.TELEGRAM_WEBHOOK_SECRET',
];

export const REDACT_PATHS = [...SECRET_PATHS, ...SECRET_PATHS.map((p) => `*.${p}`)];

/** Scrubs credentials from free text: bot tokens, `ApiKey …` / `Bearer …` headers, `/bot<token>/` URLs. */
export function redactSecrets(text: string): string {
  return text
    .replace(/(?<!\d)\d{5,}:[\w-]{20,}/g, '[redacted-bot-token]')
    .replace(/\b(ApiKey|Bearer)\s+[^\s"',;]+/gi, '$1 [redacted]');
}

/** The format when LOG_FORMAT is not set: pretty for a person at a terminal, JSON for anything else. */
export function defaultLogFormat(stdoutIsTty: boolean = process.stdout.isTTY === true): LogFormat {
  return stdoutIsTty ? 'pretty' : 'json';
}

export interface LoggerSettings {
  /** Default `json`. */
  format?: LogFormat;
  /** Colours in the pretty format; default: when stdout is a terminal. */
  colorize?: boolean;
}

export function createLogger(
  level: LoggerOptions['level'] = 'info',
  destination?: DestinationStream,
  settings: LoggerSettings = {},
): Logger {
  const options: LoggerOptions = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      err: (err: unknown) => {
        const e = pino.stdSerializers.err(err as Error);
        if (typeof e.message === 'string') e.message = redactSecrets(e.message);
        if (typeof e.stack === 'string') e.stack = redactSecrets(e.stack);
        // One line per event at a terminal: the stack stays in the JSON format, for a collector.
        if (settings.format === 'pretty') return { type: e.type, message: e.message };
        return e;
      },
    },
    hooks: {
      // Paths cannot reach into the message itself: a token pasted into a message string is cut here.
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? redactSecrets(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  if (settings.format === 'pretty') {
    // A stream in this thread rather than a worker transport: lines are written in order with
    // the process's own exit, and nothing is lost when start-up fails.
    const pretty = pinoPretty({
      colorize: settings.colorize ?? process.stdout.isTTY === true,
      singleLine: true,
      translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
      // pino-pretty prints an error as a block of lines whatever the options: the error's type
      // and message join the message instead, and the stack stays in the JSON format.
      ignore: 'pid,hostname,err',
      messageFormat: (log, messageKey) => {
        const msg = String(log[messageKey] ?? '');
        const err = log.err as { type?: unknown; message?: unknown } | undefined;
        return err ? `${msg} (${String(err.type ?? 'Error')}: ${String(err.message ?? '')})` : msg;
      },
      sync: true,
      ...(destination ? { destination } : {}),
    });
    return pino(options, pretty);
  }
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing, for tests and library use. */
export const silentLogger: Logger = pino({ level: 'silent' });
