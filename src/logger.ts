/**
 * pino with secrets redacted. Redaction works on known paths; `redactSecrets` also scrubs
 * free text (error messages, URLs) so that a key or token that slipped into a string is cut.
 */
import { pino, type Logger, type LoggerOptions, type DestinationStream } from 'pino';

export type { Logger };

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
  'authorization',
  'Authorization',
  'headers.authorization',
  'headers.Authorization',
  'req.headers.authorization',
  'config.BOT_TOKEN',
  'config.ENCRYPTION_KEY',
];

export const REDACT_PATHS = [...SECRET_PATHS, ...SECRET_PATHS.map((p) => `*.${p}`)];

/** Scrubs credentials from free text: bot tokens, `ApiKey …` / `Bearer …` headers, `/bot<token>/` URLs. */
export function redactSecrets(text: string): string {
  return text
    .replace(/(?<!\d)\d{5,}:[\w-]{20,}/g, '[redacted-bot-token]')
    .replace(/\b(ApiKey|Bearer)\s+[^\s"',;]+/gi, '$1 [redacted]');
}

export function createLogger(
  level: LoggerOptions['level'] = 'info',
  destination?: DestinationStream,
): Logger {
  const options: LoggerOptions = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      err: (err: unknown) => {
        const e = pino.stdSerializers.err(err as Error);
        if (typeof e.message === 'string') e.message = redactSecrets(e.message);
        if (typeof e.stack === 'string') e.stack = redactSecrets(e.stack);
        return e;
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing, for tests and library use. */
export const silentLogger: Logger = pino({ level: 'silent' });
