/**
 * `npm run migrate -- --to redis|lowdb [--force]`: copies the bot's data between the embedded
 * store (DATA_DIR/db.json) and the cluster's Redis (REDIS_URL, under REDIS_PREFIX) — users with
 * their filters, settings, encrypted keys and statuses, and the alert state — reading the same
 * settings as `npm start`. It refuses to replace data the target already holds unless `--force`,
 * refuses while a bot uses either side (the DATA_DIR lock; a listener on the Redis change feed),
 * and prints what it copied in one line.
 *
 * Secrets stay as they are: records carry the vault's ciphertext, and the encryption key
 * (ENCRYPTION_KEY, or DATA_DIR/encryption.key and encryption.check) is neither read nor copied —
 * every process that opens the data needs that same key.
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig, ConfigError, type Config } from '../config.js';
import { redactSecrets, type Logger } from '../logger.js';
import { StoreError } from '../store/errors.js';
import type { Database } from '../store/schema.js';
import { countStored, describeRedis } from '../store/redis-bulk.js';
import { redisKeys } from '../store/redis-layout.js';
import { openRedisStore } from '../store/redis-store.js';
import { DB_FILE_NAME, openStore } from '../store/store.js';

export const MIGRATE_USAGE = 'usage: npm run migrate -- --to redis|lowdb [--force]   (DATA_DIR, REDIS_URL and REDIS_PREFIX as for npm start)';

export interface MigrateArgs {
  to: 'redis' | 'lowdb';
  force: boolean;
}

/** The arguments, or the line to print for a wrong one (the usage itself for --help). */
export function parseMigrateArgs(argv: readonly string[]): MigrateArgs | string {
  let to: string | undefined;
  let force = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--force') force = true;
    else if (a === '--to') to = argv[++i];
    else if (a.startsWith('--to=')) to = a.slice('--to='.length);
    else if (a === '--help' || a === '-h') return MIGRATE_USAGE;
    else return `unknown argument ${a.startsWith('--') ? a : '(not shown)'}\n${MIGRATE_USAGE}`;
  }
  if (to !== 'redis' && to !== 'lowdb') return `--to needs redis or lowdb\n${MIGRATE_USAGE}`;
  return { to, force };
}

export interface MigrateOptions {
  args: MigrateArgs;
  env: NodeJS.ProcessEnv;
  /** One line of the result. */
  out: (line: string) => void;
  /** Warnings of the stores (a broken record left out), for stderr. */
  logger: Logger;
}

/** Thrown for a refusal; its message is the line to print. */
export class MigrateRefusal extends Error {
  override name = 'MigrateRefusal';
}

const KEY_NOTE =
  'the encryption key was not copied and stays where it is (ENCRYPTION_KEY, or encryption.key and encryption.check in DATA_DIR): every process that opens this data needs that same key, so set ENCRYPTION_KEY alike everywhere';

/** Runs the copy; resolves with the process's exit code (0 copied, 1 refused or failed). */
export async function runMigrate(opts: MigrateOptions): Promise<number> {
  try {
    const config = loadConfig(opts.env);
    const url = config.REDIS_URL;
    if (url === undefined) throw new MigrateRefusal('REDIS_URL: not set: the Redis to copy to or from (redis://host:port), as the cluster will use it');
    const copied = opts.args.to === 'redis' ? await toRedis(config, url, opts) : await toLowdb(config, url, opts);
    opts.out(copied);
    opts.out(KEY_NOTE);
    return 0;
  } catch (err) {
    opts.out(describe(err));
    return 1;
  }
}

function describe(err: unknown): string {
  if (err instanceof MigrateRefusal || err instanceof ConfigError) return err.message;
  if (err instanceof StoreError) {
    const text = err.message.startsWith(`${err.setting}:`) || err.message.startsWith(err.setting) ? err.message : `${err.setting}: ${err.message}`;
    return `${text} (nothing was copied)`;
  }
  return `migrate failed: ${redactSecrets(err instanceof Error ? err.message : String(err))}`;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

function counts(data: Database): string {
  const subs = Object.values(data.alerts).filter((items) => Object.keys(items).length > 0);
  const entries = subs.reduce((n, items) => n + Object.keys(items).length, 0);
  const positions = Object.values(data.ledger).reduce((n, book) => n + book.positions.length, 0);
  return `${plural(Object.keys(data.users).length, 'user', 'users')}, ${plural(entries, 'alert entry', 'alert entries')} (${plural(subs.length, 'subscription', 'subscriptions')}) and ${plural(positions, 'ledger position', 'ledger positions')}`;
}

/** Looks at the Redis side before a store opens it: what it holds, and whether a bot listens to its change feed. */
async function inspectRedis(url: string, prefix: string): Promise<{ users: number; alertSubscriptions: number }> {
  const where = describeRedis(url, prefix);
  const keys = redisKeys(prefix);
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  let lastError: Error | undefined;
  client.on('error', (err: Error) => (lastError = err));
  try {
    await client.connect();
  } catch {
    client.disconnect();
    throw new MigrateRefusal(`REDIS_URL: cannot reach Redis at ${where}: ${lastError?.message ?? 'connection closed'}; check that Redis runs and the address (nothing was copied)`);
  }
  try {
    const listeners = (await client.call('PUBSUB', 'NUMSUB', keys.changes)) as [string, number];
    if (Number(listeners[1]) > 0) {
      throw new MigrateRefusal(`REDIS_URL: a bot is using ${where} (it listens to ${keys.changes}): stop every bot process on this REDIS_URL and REDIS_PREFIX first (nothing was copied)`);
    }
    return await countStored(client, keys);
  } finally {
    client.disconnect();
  }
}

async function toRedis(config: Config, url: string, opts: MigrateOptions): Promise<string> {
  const dataDir = resolve(config.DATA_DIR);
  const file = join(dataDir, DB_FILE_NAME);
  if (!(await stat(file).then(() => true, () => false))) {
    throw new MigrateRefusal(`DATA_DIR: there is no ${file} to copy: point DATA_DIR at the folder of the bot's data (nothing was copied)`);
  }
  const where = describeRedis(url, config.REDIS_PREFIX);
  const held = await inspectRedis(url, config.REDIS_PREFIX);
  if ((held.users > 0 || held.alertSubscriptions > 0) && !opts.args.force) {
    throw new MigrateRefusal(
      `REDIS_URL: ${where} already holds ${plural(held.users, 'user', 'users')} and alert state of ${plural(held.alertSubscriptions, 'subscription', 'subscriptions')}: run with --force to replace them, or set another REDIS_PREFIX (nothing was copied)`,
    );
  }
  const source = await openStore({ dataDir, logger: opts.logger });
  try {
    if (source.loadReport.movedAside) {
      throw new MigrateRefusal(`DATA_DIR: ${file} was unreadable and has been moved aside to ${source.loadReport.movedAside}: restore it from a backup first (nothing was copied)`);
    }
    const data = source.snapshot();
    const target = await openRedisStore({ url, prefix: config.REDIS_PREFIX, logger: opts.logger, loadAllAlerts: false });
    try {
      await target.replaceAll(data);
    } finally {
      await target.close();
    }
    return `copied ${counts(data)} from ${file} to Redis at ${where}`;
  } finally {
    await source.close();
  }
}

async function toLowdb(config: Config, url: string, opts: MigrateOptions): Promise<string> {
  const dataDir = resolve(config.DATA_DIR);
  const where = describeRedis(url, config.REDIS_PREFIX);
  const held = await inspectRedis(url, config.REDIS_PREFIX);
  if (held.users === 0 && held.alertSubscriptions === 0) {
    throw new MigrateRefusal(`REDIS_URL: ${where} holds no users and no alert state: check REDIS_URL and REDIS_PREFIX (nothing was copied)`);
  }
  // The lock of DATA_DIR keeps a bot from running on it meanwhile.
  const target = await openStore({ dataDir, logger: opts.logger });
  try {
    const holds = target.listUsers().length;
    if ((holds > 0 || target.alerts.size() > 0) && !opts.args.force) {
      throw new MigrateRefusal(
        `DATA_DIR: ${target.file} already holds ${plural(holds, 'user', 'users')} and ${plural(target.alerts.size(), 'alert entry', 'alert entries')}: run with --force to replace them, or point DATA_DIR at an empty folder (nothing was copied)`,
      );
    }
    const source = await openRedisStore({ url, prefix: config.REDIS_PREFIX, logger: opts.logger, loadAllAlerts: true });
    let data: Database;
    try {
      data = source.snapshot();
    } finally {
      await source.close();
    }
    target.replaceAll(data);
    await target.flush();
    return `copied ${counts(data)} from Redis at ${where} to ${target.file}`;
  } finally {
    await target.close();
  }
}
