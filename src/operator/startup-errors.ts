/**
 * A failed start in one line that names the setting to fix: Telegram refusing the token, the Bot
 * API out of reach (with the address tried), DATA_DIR, the store from a newer version, the
 * encryption key. Nothing here echoes a secret: the token is never part of the line, and the
 * fallback text is scrubbed.
 */
import { GrammyError, HttpError } from 'grammy';
import { ConfigError, type Config } from '../config.js';
import { redactSecrets } from '../logger.js';
import { StoreError } from '../store/errors.js';
import { VaultError } from '../store/vault.js';
import { describeNetworkCause } from './causes.js';
import { OperatorError } from './data-dir.js';

type Settings = Pick<Config, 'TELEGRAM_API_ROOT' | 'DATA_DIR' | 'TELEGRAM_WEBHOOK_URL'>;

export function describeStartupError(err: unknown, config: Settings): string {
  if (err instanceof ConfigError || err instanceof OperatorError) return err.message;
  if (err instanceof GrammyError) return describeTelegramRefusal(err, config);
  if (err instanceof HttpError) {
    return `TELEGRAM_API_ROOT: cannot reach the Bot API at ${config.TELEGRAM_API_ROOT}: ${describeNetworkCause(err)}; check the address, DNS, a firewall or proxy between this host and Telegram`;
  }
  if (err instanceof StoreError && err.code === 'newer-version') return named('DATA_DIR', err.message);
  if (err instanceof VaultError) return named('ENCRYPTION_KEY', err.message);
  const text = err instanceof Error ? err.message : String(err);
  return `start failed: ${redactSecrets(text)}`;
}

/** `setting: message`, unless the message names the setting already (never `X: X does not …`). */
function named(setting: string, message: string): string {
  return new RegExp(`\\b${setting}\\b`).test(message) ? message : `${setting}: ${message}`;
}

function describeTelegramRefusal(err: GrammyError, config: Settings): string {
  if (err.error_code === 401 || err.error_code === 404) {
    // The Bot API answers 404 to a token of a deleted bot, 401 to a wrong one.
    return `BOT_TOKEN: Telegram refused the token (${err.error_code} ${err.description.replace(/^[^:]*:\s*/, '') || 'Unauthorized'}) at ${config.TELEGRAM_API_ROOT}: copy it again from @BotFather (/mybots → your bot → API Token)`;
  }
  if (err.method === 'setWebhook') {
    return `TELEGRAM_WEBHOOK_URL: Telegram refused the webhook ${config.TELEGRAM_WEBHOOK_URL ?? ''} (${err.error_code}: ${redactSecrets(err.description)}): use a public https:// URL on port 443, 80, 88 or 8443 that reaches HTTP_PORT`;
  }
  return `TELEGRAM_API_ROOT: the Bot API at ${config.TELEGRAM_API_ROOT} answered ${err.method} with ${err.error_code}: ${redactSecrets(err.description)}`;
}
