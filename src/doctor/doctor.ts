/**
 * `npm run doctor`: runs the checks in order with the settings `npm start` reads, printing ✓ or ✗
 * and the fix for each; true when all passed. A check that cannot run because an earlier one
 * failed (no valid settings, no token) is said to be skipped, which counts as not passed.
 */
import { loadConfig, ConfigError, type Config } from '../config.js';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { silentLogger } from '../logger.js';
import { StoreError } from '../store/errors.js';
import { lockDataDir } from '../store/lock.js';
import { checkDataDir, checkKeyPair, checkReachable, checkTelegram, checkWebhook, keyCheckNotice, type Verdict } from './checks.js';

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  /** Whether to delete a leftover webhook: `--fix`, or the operator's answer at a prompt. */
  fixWebhook: () => Promise<boolean>;
  /** `--key`: the access key and a way to read its secret (never from the command line). */
  key?: { accessKey: string; secret: () => Promise<string> };
  now?: () => number;
}

export async function runDoctor(opts: DoctorOptions): Promise<boolean> {
  const { out } = opts;
  const now = opts.now ?? Date.now;
  let allOk = true;
  const report = (v: Verdict) => {
    allOk &&= v.ok;
    out(`${v.ok ? '✓' : '✗'} ${v.detail}`);
    if (!v.ok && v.fix) out(`  fix: ${v.fix}`);
  };

  let config: Config;
  try {
    config = loadConfig(opts.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    report({ ok: false, detail: `settings: ${err.message}`, fix: 'correct it in .env or the environment (.env.example lists every setting)' });
    out('the other checks need valid settings: skipped');
    return false;
  }
  const token = config.BOT_TOKEN;
  report(
    token === undefined
      ? { ok: false, detail: 'settings: BOT_TOKEN is not set', fix: 'put the token from @BotFather into BOT_TOKEN (.env or the environment)' }
      : {
          ok: true,
          detail: `settings are valid (${config.TELEGRAM_WEBHOOK_URL !== undefined ? 'webhook' : 'long polling'}${config.HTTP_PORT !== undefined ? `, operator port ${config.HTTP_HOST}:${config.HTTP_PORT}` : ''})`,
        },
  );

  for (const v of await checkDataDir(config)) report(v);

  if (token === undefined) {
    out('the Telegram checks need BOT_TOKEN: skipped');
  } else {
    const { verdict, api } = await checkTelegram(config, token);
    report(verdict);
    if (api) {
      try {
        report(await checkWebhook(config, api, opts.fixWebhook));
      } catch (err) {
        report({ ok: false, detail: `the webhook state could not be read: ${err instanceof Error ? err.message : String(err)}` });
      }
    }
  }

  report(await checkReachable('BB_AUTH_URL', config.BB_AUTH_URL));
  report(await checkReachable('BB_DICTS_URL', config.BB_DICTS_URL));

  if (opts.key) {
    // The token ledger is the running bot's: it keeps its own copy and would write over the
    // request recorded here (and the request would not count in its budget). Holding DATA_DIR's
    // lock for the check keeps the bot from starting meanwhile, too.
    const dataDir = resolve(config.DATA_DIR);
    const lock = await mkdir(dataDir, { recursive: true })
      .then(() => lockDataDir(dataDir, silentLogger))
      .catch((err: unknown) => {
        if (err instanceof StoreError && err.code === 'locked') {
          report({ ok: false, detail: `--key: ${err.message.replace(/: stop it first.*$/, '')}; its token ledger would not count this request, so nothing was sent`, fix: 'stop the bot first, or check the key in the chat with /connect' });
        } else {
          report({ ok: false, detail: `--key: DATA_DIR cannot hold the token ledger (${(err as NodeJS.ErrnoException).code ?? 'error'}): nothing was sent`, fix: 'fix DATA_DIR first (see above)' });
        }
        return undefined;
      });
    if (lock) {
      try {
        const notice = await keyCheckNotice(config, opts.key.accessKey, now());
        out(`… ${notice.line}`);
        const secret = (await opts.key.secret()).trim();
        if (secret === '') report({ ok: false, detail: 'no secret was given for --key: nothing was sent', fix: 'paste it at the prompt, pipe it on stdin, or set DOCTOR_SECRET_KEY' });
        else for (const v of await checkKeyPair(config, opts.key.accessKey, secret, now)) report(v);
      } finally {
        await lock.release();
      }
    }
  }

  out(allOk ? 'all checks passed' : 'some checks failed: fix the lines marked ✗ and run the doctor again');
  return allOk;
}
