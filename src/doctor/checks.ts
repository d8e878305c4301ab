/**
 * The doctor's checks, in the order an operator fixes things: settings, DATA_DIR and the
 * encryption key, Telegram (token, webhook), the Data Service's hosts, and optionally one access
 * key pair. Each returns a verdict with the fix in words; none changes anything unless asked
 * (the leftover webhook, with `fix`). The store is only read: the bot may be running.
 */
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Api } from 'grammy';
import { request } from 'undici';
import { z } from 'zod';
import type { Config } from '../config.js';
import { silentLogger } from '../logger.js';
import { describeNetworkCause } from '../operator/causes.js';
import { assertDataDirWritable, OperatorError } from '../operator/data-dir.js';
import { describeStartupError } from '../operator/startup-errors.js';
import { VaultError } from '../store/errors.js';
import { matchEncryptionKey } from '../store/key-check.js';
import { SCHEMA_VERSION } from '../store/schema.js';
import { DB_FILE_NAME } from '../store/store.js';
import { KEY_FILE_NAME, Vault } from '../store/vault.js';
import { createServiceClient } from '../service/client.js';
import type { ServiceClient } from '../service/client-types.js';
import { isServiceError } from '../service/errors.js';
import type { Service } from '../service/services.js';
import { TokenLedger } from '../scheduler/token-ledger.js';

export interface Verdict {
  ok: boolean;
  /** What was found, one line. */
  detail: string;
  /** What to do, when not ok. */
  fix?: string;
}

/** How long a reachability probe waits. */
const PROBE_TIMEOUT_MS = 5_000;

// Just what the key check needs of db.json; the full schema is the store's business.
const storedFile = z.object({
  version: z.number().int().nonnegative().optional(),
  users: z.record(z.string(), z.object({ id: z.number().optional(), key: z.object({ accessKey: z.string(), secretEnc: z.string() }).nullable().optional() }).loose()).optional(),
}).loose();

/** DATA_DIR writable, the store readable by this version, and the encryption key opening the stored secrets. */
export async function checkDataDir(config: Config): Promise<Verdict[]> {
  const dir = resolve(config.DATA_DIR);
  try {
    await assertDataDirWritable(dir);
  } catch (err) {
    if (!(err instanceof OperatorError)) throw err;
    return [{ ok: false, detail: err.message, fix: 'chown or chmod the folder, or set DATA_DIR to a writable one' }];
  }
  const out: Verdict[] = [{ ok: true, detail: `DATA_DIR ${dir} is writable` }];

  let users: { id: number; key: { accessKey: string; secretEnc: string } | null }[] = [];
  try {
    const parsed = storedFile.safeParse(JSON.parse(await readFile(join(dir, DB_FILE_NAME), 'utf8')));
    if (!parsed.success) {
      out.push({ ok: false, detail: `${DB_FILE_NAME} in DATA_DIR is not the bot's database`, fix: 'restore it from a backup, or move it away to start empty' });
      return out;
    }
    const version = parsed.data.version ?? 0;
    if (version > SCHEMA_VERSION) {
      out.push({
        ok: false,
        detail: `DATA_DIR: ${DB_FILE_NAME} was written by a newer version of the bot (schema ${version}; this one reads up to ${SCHEMA_VERSION})`,
        fix: 'run the newer version again, or restore a backup taken before the upgrade',
      });
      return out;
    }
    // The record's own id: each secret is sealed for its user, and opens only with that id.
    users = Object.entries(parsed.data.users ?? {}).map(([id, u]) => ({ id: u.id ?? Number(id), key: u.key ?? null }));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      out.push({ ok: false, detail: `${DB_FILE_NAME} in DATA_DIR cannot be read as JSON`, fix: 'restore it from a backup; at start the bot moves an unreadable file aside and starts empty' });
      return out;
    }
  }

  const keyFile = join(dir, KEY_FILE_NAME);
  const stored = users.filter((u) => u.key !== null).length;
  if (config.ENCRYPTION_KEY === undefined && !(await exists(keyFile))) {
    out.push(
      stored === 0
        ? { ok: true, detail: 'no encryption key yet: the bot generates one into DATA_DIR at first start (back it up)' }
        : {
            ok: false,
            detail: `ENCRYPTION_KEY: the key is missing (no ENCRYPTION_KEY, no ${keyFile}) but ${stored} users have stored secrets`,
            fix: 'restore DATA_DIR/encryption.key or ENCRYPTION_KEY from your backup',
          },
    );
    return out;
  }
  try {
    const vault = await Vault.open({ dataDir: dir, ...(config.ENCRYPTION_KEY !== undefined && { envKey: config.ENCRYPTION_KEY }), logger: silentLogger });
    const result = await matchEncryptionKey({ dataDir: dir, store: { listUsers: () => users }, vault });
    out.push({
      ok: true,
      detail:
        result.stored === 0
          ? `the encryption key (${vault.keySource === 'env' ? 'ENCRYPTION_KEY' : KEY_FILE_NAME}) is readable; no stored secrets to test it on yet`
          : `the encryption key opens the stored secrets (${result.stored} users connected)`,
    });
  } catch (err) {
    const text = err instanceof VaultError && err.code === 'wrong-key' ? err.message : describeStartupError(err, config);
    out.push({ ok: false, detail: text, fix: 'use the key the secrets were stored with; without it every user must /connect again' });
  }
  return out;
}

/** getMe: the Bot API reachable and the token accepted. */
export async function checkTelegram(config: Config, token: string): Promise<{ verdict: Verdict; api?: Api }> {
  const api = new Api(token, { apiRoot: config.TELEGRAM_API_ROOT, timeoutSeconds: PROBE_TIMEOUT_MS / 1000 });
  try {
    const me = await api.getMe();
    return { verdict: { ok: true, detail: `Telegram accepts BOT_TOKEN: the bot is @${me.username}` }, api };
  } catch (err) {
    const line = describeStartupError(err, config);
    const fix = line.startsWith('BOT_TOKEN')
      ? 'put the token from @BotFather into BOT_TOKEN'
      : 'check TELEGRAM_API_ROOT and that this host can reach it';
    return { verdict: { ok: false, detail: line, fix } };
  }
}

/**
 * The webhook Telegram holds: in long-polling mode a leftover one blocks getUpdates, and is
 * deleted when `fix` says yes; in webhook mode its address and Telegram's last delivery error.
 */
export async function checkWebhook(config: Config, api: Api, fix: () => Promise<boolean>): Promise<Verdict> {
  const info = await api.getWebhookInfo();
  if (config.TELEGRAM_WEBHOOK_URL === undefined) {
    if (info.url === '') return { ok: true, detail: 'no webhook set: long polling will get the updates' };
    if (await fix()) {
      await api.deleteWebhook();
      return { ok: true, detail: `a leftover webhook (${info.url}) was deleted: long polling will get the updates` };
    }
    return {
      ok: false,
      detail: `a webhook is set (${info.url}) and TELEGRAM_WEBHOOK_URL is not: Telegram refuses long polling while it is`,
      fix: 'run `npm run doctor -- --fix` to delete it (the bot also deletes it at start), or set TELEGRAM_WEBHOOK_URL to use it',
    };
  }
  if (info.last_error_message !== undefined && info.last_error_message !== '') {
    return {
      ok: false,
      detail: `Telegram's last delivery to the webhook failed: ${info.last_error_message}`,
      fix: 'check that TELEGRAM_WEBHOOK_URL reaches HTTP_PORT through your proxy, with a valid certificate',
    };
  }
  if (info.url === config.TELEGRAM_WEBHOOK_URL) return { ok: true, detail: `the webhook is set to ${info.url}` };
  return { ok: true, detail: `the webhook is ${info.url === '' ? 'not set yet' : `set to ${info.url}`}: the bot sets it to TELEGRAM_WEBHOOK_URL at start` };
}

/** Whether `url` answers HTTP at all (any status): the host resolves, connects and speaks TLS. */
export async function checkReachable(setting: string, url: string): Promise<Verdict> {
  try {
    const res = await request(url, { method: 'GET', headersTimeout: PROBE_TIMEOUT_MS, bodyTimeout: PROBE_TIMEOUT_MS, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.body.dump();
    return { ok: true, detail: `${setting} ${url} is reachable (HTTP ${res.statusCode})` };
  } catch (err) {
    return {
      ok: false,
      detail: `${setting}: cannot reach ${url}: ${describeNetworkCause(err)}`,
      fix: `check ${setting}, DNS and the firewall between this host and the service`,
    };
  }
}

/** The service the key check asks a token for. */
const KEY_CHECK_SERVICE: Service = 'arbs_prematch';

/** What `--key` says before it spends a token request. */
export async function keyCheckNotice(config: Config, accessKey: string, now: number): Promise<{ used: number; line: string }> {
  const ledger = new TokenLedger(join(resolve(config.DATA_DIR), 'token-ledger.json'));
  ledger.load(now);
  const used = ledger.count(accessKey, now);
  return {
    used,
    line: `one token request for this key follows: it counts in the key's budget of ${config.LIMIT_TOKENS_PER_HOUR} an hour (${used} used in the last hour by this bot)`,
  };
}

/**
 * One token request for the pair; recorded in DATA_DIR's token ledger so the bot counts it at its
 * next start. A ledger that cannot be written is a second ✗: the bot would not know this request
 * was spent and could send one more than the service allows in this hour.
 */
export async function checkKeyPair(config: Config, accessKey: string, secret: string, now: () => number): Promise<Verdict[]> {
  const ledgerFile = join(resolve(config.DATA_DIR), 'token-ledger.json');
  const ledger = new TokenLedger(ledgerFile);
  ledger.load(now());
  if (ledger.count(accessKey, now()) >= config.LIMIT_TOKENS_PER_HOUR) {
    return [
      {
        ok: false,
        detail: `the key's ${config.LIMIT_TOKENS_PER_HOUR} token requests of the last hour are used: no request was sent`,
        fix: 'try again within the hour',
      },
    ];
  }
  const client = createServiceClient({ config, logger: silentLogger });
  ledger.record(accessKey, now());
  let verdict: Verdict;
  try {
    verdict = await askForToken(client, config, accessKey, secret);
  } finally {
    await client.close();
  }
  try {
    await ledger.save(now());
    return [verdict];
  } catch (err) {
    return [
      verdict,
      {
        ok: false,
        detail: `the token request could not be recorded in ${ledgerFile} (${err instanceof Error ? err.message : String(err)}): the bot will not count it at its next start`,
        fix: 'make that file writable by this user (or remove it if it is not a file), then start the bot after the hour is over',
      },
    ];
  }
}

async function askForToken(client: ServiceClient, config: Config, accessKey: string, secret: string): Promise<Verdict> {
  try {
    await client.checkKey({ accessKey, revealSecret: () => secret }, KEY_CHECK_SERVICE, { wait: false });
    return { ok: true, detail: 'the service accepts the key pair' };
  } catch (err) {
    if (!isServiceError(err)) throw err;
    if (err.kind === 'forbidden') return { ok: true, detail: `the service accepts the key pair (it has no access to ${KEY_CHECK_SERVICE})` };
    if (err.kind === 'auth') {
      return { ok: false, detail: 'the service refused the key pair (wrong access key or secret)', fix: 'copy both again from your account on the service' };
    }
    return { ok: false, detail: `the key check failed: ${err.kind}`, fix: `check BB_AUTH_URL (${config.BB_AUTH_URL}) and try again later` };
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
