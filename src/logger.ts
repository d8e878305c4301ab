/**
 * pino with secrets redacted, as JSON lines for a log collector or as pretty, coloured lines
 * for a person at a terminal (LOG_FORMAT). Every logged value is first copied through
 * `scrubValue` (log-redaction.ts): every string at any depth loses the known secrets and anything
 * shaped like a credential, message texts are dropped, errors become plain data. The finished
 * line passes the same cut once more, so both formats carry the same censored values.
 */
import { pino, type Logger, type LoggerOptions, type DestinationStream } from 'pino';
import pinoPretty from 'pino-pretty';
import { cutPatterns, knownSecrets, messageWithInner, scrubValue, type SecretRegistry } from './log-redaction.js';

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

/** Scrubs credentials from free text by pattern and by the process's known secrets: bot tokens, `ApiKey …` / `Bearer …` headers, URL passwords. */
export function redactSecrets(text: string): string {
  return cutPatterns(knownSecrets.cut(text));
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
  /** The secrets cut by value; default: the process's registry (`knownSecrets`). */
  secrets?: SecretRegistry;
}

export function createLogger(
  level: LoggerOptions['level'] = 'info',
  destination?: DestinationStream,
  settings: LoggerSettings = {},
): Logger {
  const secrets = settings.secrets ?? knownSecrets;
  const cut = (text: string) => secrets.cut(text);
  const scrub = (value: unknown) => scrubValue(value, cut);
  const options: LoggerOptions = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      // The hook below has already made errors plain, scrubbed data; pino's own serializer would
      // add `raw` and the inner errors' messages unscrubbed.
      err: (err: unknown) => {
        const e = (isPlainObject(err) ? err : scrub(err)) as { type?: unknown; message?: unknown };
        // One line per event at a terminal: the stack stays in the JSON format, for a collector.
        if (settings.format === 'pretty') return { type: e.type, message: messageWithInner(e) };
        return e;
      },
    },
    hooks: {
      // Every argument is scrubbed before pino sees it, so pino's own use of them (an error's
      // message as the line's message) finds nothing to leak.
      logMethod(args, method) {
        const [first, ...rest] = args as unknown[];
        let out: unknown[];
        if (first instanceof Error) {
          const err = scrub(first) as { message: string };
          out = [{ err }, ...(typeof rest[0] === 'string' ? rest.map(scrub) : [err.message, ...rest.map(scrub)])];
        } else {
          out = [first, ...rest].map(scrub);
        }
        method.apply(this, out as Parameters<typeof method>);
      },
      // The last net, over the finished line in either format: an operator's secret that reached a
      // value this module did not walk (a redaction path's neighbour) is cut here. Users' secrets
      // are not: they are cut inside values above, and a value a user chose (`{"level":30,`) cut
      // from a whole line would cut its JSON syntax (audit 3, M1).
      streamWrite: (line) => cutPatterns(secrets.cutPinned(line)),
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
    return scrubbingChildren(pino(options, pretty), scrub);
  }
  return scrubbingChildren(destination ? pino(options, destination) : pino(options), scrub);
}

/**
 * pino writes a child's bindings as given (its `bindings` formatter is not applied to children):
 * they are scrubbed on the way in. Children inherit the method, so grandchildren are too.
 */
function scrubbingChildren(logger: Logger, scrub: (value: unknown) => unknown): Logger {
  const original = Object.getPrototypeOf(logger).child as (this: Logger, ...args: unknown[]) => Logger;
  Object.defineProperty(logger, 'child', {
    value(this: Logger, bindings: unknown, ...rest: unknown[]): Logger {
      return original.call(this, scrub(bindings), ...rest);
    },
    writable: true,
    configurable: true,
  });
  return logger;
}

/** A logger that writes nothing, for tests and library use. */
export const silentLogger: Logger = pino({ level: 'silent' });

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}
