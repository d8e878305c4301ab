/**
 * `npm run migrate` against a real Redis: lowdb → Redis and back keep every user, alert entry and ledger
 * as they were (secrets as the same ciphertext, which the same key opens; the key itself is not
 * copied), a target that holds data is replaced only with --force, a bot using either side stops
 * the copy, and each refusal is one line naming the setting.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { parseMigrateArgs, runMigrate, type MigrateArgs } from '../../src/operator/migrate.js';
import type { Database } from '../../src/store/schema.js';
import { openStore } from '../../src/store/store.js';
import { Vault } from '../../src/store/vault.js';
import { entry, samplePrint, tempDir } from '../store/fixtures.js';
import { workedBook } from '../ledger/worked.js';
import { redisStoreSuite } from '../store/redis-fixtures.js';

const { redis, stores } = await redisStoreSuite('migrate');

async function migrate(to: MigrateArgs['to'], env: Record<string, string | undefined>, force = false): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runMigrate({ args: { to, force }, env, out: (l) => lines.push(l), logger: silentLogger });
  return { code, lines };
}

/** A DATA_DIR with two users (one with a key pair, a filter, a draft, an order of services and a status) and alert state. */
async function lowdbWithData(dataDir: string, vault?: Vault): Promise<Database> {
  const store = await openStore({ dataDir, logger: silentLogger });
  store.updateUser(
    7,
    (u) => {
      u.key = { accessKey: 'ak-7', secretEnc: vault ? vault.encrypt('secret-of-seven-0123') : 'v1:x', connectedAt: 5 };
      u.filters.arbs_live = {
        settings: { sports: [1], bookmakers: [], minProfit: 1, maxProfit: null, minOdds: null, maxOdds: null, hoursToStart: null, minOvervalue: null, marketsOff: [], minProfitBySport: {} },
        paused: true,
        pausedReason: 'auth',
        savedAt: 9,
      };
      u.status.arbs_live = { lastGoodReadAt: 3, lastAlertAt: 4, lastError: { kind: 'auth', at: 5 } };
      u.mutedEvents = { 'ev-1': 99 };
      // A draft waiting for the token budget and the user's order of services go along.
      u.drafts.valuebets_prematch = {
        settings: { sports: [], bookmakers: [2], minProfit: 0, maxProfit: null, minOdds: 1.5, maxOdds: 4, hoursToStart: null, minOvervalue: 3, marketsOff: ['odd_even' as const], minProfitBySport: { '6': 2 } },
        createdAt: 11,
      };
      u.serviceRank = ['valuebets_prematch'];
    },
    { chatId: 70, lang: 'ru' },
  );
  store.updateUser(8, () => undefined, { chatId: 80 });
  store.alerts.set('7:arbs_live', 'a', entry());
  store.alerts.set('7:arbs_live', 'b', entry({ goneAt: 3_000 }));
  store.alerts.set('8:middles_live', 'c', entry({ messageId: null }));
  // The ledger moves too: a settled arb and an open valuebet.
  const worked = workedBook();
  await store.ledger.put(7, worked.positions[0]!);
  await store.ledger.put(7, worked.positions[6]!);
  store.ledger.noteClose(7, worked.positions[6]!.id, 0, { odds: 2.4, at: 1, fairOdds: 2.3, market: null, index: 0 });
  await store.ledger.updateSettings(7, { startBank: 2000, nextId: 8 });
  // What a sent alert printed, so its ✅ Placed still records it after the move (kept a week from its send).
  store.prints.put(7, samplePrint({ sentAt: Date.now() }));
  const data = store.snapshot();
  await store.close();
  return data;
}

const envFor = (dataDir: string, prefix: string) => ({ DATA_DIR: dataDir, REDIS_URL: redis.url, REDIS_PREFIX: prefix });


/** The Redis URL as the command shows it: without its password (the private test server has one). */
const shownUrl = () => {
  const url = new URL(redis.url);
  url.username = '';
  url.password = '';
  return url.toString().replace(/\/$/, '');
};

describe.skipIf(!redis.available)('npm run migrate', () => {
  it('copies a DATA_DIR into Redis and says what it copied in one line, and that the key stays where it is', async () => {
    const dataDir = await tempDir();
    const vault = await Vault.open({ dataDir, logger: silentLogger });
    const data = await lowdbWithData(dataDir, vault);
    const prefix = stores.freshPrefix();
    const { code, lines } = await migrate('redis', envFor(dataDir, prefix));
    expect(code).toBe(0);
    expect(lines[0]).toBe(`copied 2 users, 3 alert entries (2 subscriptions) and 2 ledger positions from ${join(dataDir, 'db.json')} to Redis at ${shownUrl()} (prefix ${prefix})`);
    expect(lines[1]).toMatch(/encryption key was not copied .* ENCRYPTION_KEY/);

    const copy = await stores.open({ prefix });
    expect(copy.snapshot()).toEqual(data);
    expect(copy.findUserByAccessKey('ak-7')?.id).toBe(7);
    expect(vault.decrypt(copy.getUser(7)?.key?.secretEnc ?? '')).toBe('secret-of-seven-0123');
    const keyFile = (await readFile(join(dataDir, 'encryption.key'), 'utf8')).trim();
    const names = await stores.raw().keys(`${prefix}*`);
    const values = await Promise.all(names.map(async (n) => ((await stores.raw().type(n)) === 'hash' ? JSON.stringify(await stores.raw().hgetall(n)) : '')));
    expect(values.join('')).not.toContain(keyFile);
    expect(values.join('')).not.toContain('secret-of-seven');
  });

  it('refuses to replace data Redis holds without --force, and replaces all of it with --force', async () => {
    const dataDir = await tempDir();
    await lowdbWithData(dataDir);
    const prefix = stores.freshPrefix();
    const other = await stores.open({ prefix });
    other.updateUser(99, () => undefined, { chatId: 99 });
    other.alerts.set('99:arbs_live', 'z', entry());
    await other.close();

    const refused = await migrate('redis', envFor(dataDir, prefix));
    expect(refused.code).toBe(1);
    expect(refused.lines).toEqual([expect.stringMatching(/^REDIS_URL: .* already holds 1 user and alert state of 1 subscription: run with --force .*\(nothing was copied\)$/)]);
    expect(await stores.raw().smembers(stores.keys(prefix).users)).toEqual(['99']);

    expect((await migrate('redis', envFor(dataDir, prefix), true)).code).toBe(0);
    const copy = await stores.open({ prefix });
    expect(copy.listUsers().map((u) => u.id)).toEqual([7, 8]);
    expect(copy.alerts.entries('99:arbs_live')).toEqual([]);
    expect(await stores.raw().exists(stores.keys(prefix).alerts('99:arbs_live'))).toBe(0);
  });

  it('copies Redis back into a DATA_DIR (the round trip keeps everything), refusing a DATA_DIR with data without --force', async () => {
    const source = await tempDir();
    const data = await lowdbWithData(source);
    const prefix = stores.freshPrefix();
    expect((await migrate('redis', envFor(source, prefix))).code).toBe(0);

    const back = await tempDir();
    const copied = await migrate('lowdb', envFor(back, prefix));
    expect(copied.code).toBe(0);
    expect(copied.lines[0]).toBe(`copied 2 users, 3 alert entries (2 subscriptions) and 2 ledger positions from Redis at ${shownUrl()} (prefix ${prefix}) to ${join(back, 'db.json')}`);
    const reread = await openStore({ dataDir: back, logger: silentLogger });
    expect(reread.snapshot()).toEqual(data);
    reread.updateUser(8, (u) => void (u.bankroll = 1));
    await reread.close();

    const refused = await migrate('lowdb', envFor(back, prefix));
    expect(refused.code).toBe(1);
    expect(refused.lines[0]).toMatch(/^DATA_DIR: .*db\.json already holds 2 users and 3 alert entries: run with --force/);
    expect((await migrate('lowdb', envFor(back, prefix), true)).code).toBe(0);
    const replaced = await openStore({ dataDir: back, logger: silentLogger });
    expect(replaced.getUser(8)?.bankroll).toBe(100);
    await replaced.close();
  });

  it('refuses while a bot uses the Redis prefix or the DATA_DIR', async () => {
    const dataDir = await tempDir();
    await lowdbWithData(dataDir);
    const prefix = stores.freshPrefix();
    const running = await stores.open({ prefix });
    running.updateUser(1, () => undefined, { chatId: 1 });
    await running.flush();
    const toRedis = await migrate('redis', envFor(dataDir, prefix), true);
    expect(toRedis.code).toBe(1);
    expect(toRedis.lines[0]).toMatch(/^REDIS_URL: a bot is using .*: stop every bot process/);
    await stores.closeAll();

    const bot = await openStore({ dataDir, logger: silentLogger });
    try {
      const toLowdb = await migrate('lowdb', envFor(dataDir, prefix), true);
      expect(toLowdb.code).toBe(1);
      expect(toLowdb.lines[0]).toMatch(/^DATA_DIR .* is in use by another bot process .*\(nothing was copied\)$/);
    } finally {
      await bot.close();
    }
  });

  it('names the setting when there is nothing to copy or no Redis', async () => {
    const empty = await tempDir();
    expect((await migrate('redis', { DATA_DIR: empty })).lines).toEqual([expect.stringMatching(/^REDIS_URL: not set/)]);
    expect((await migrate('redis', envFor(empty, stores.freshPrefix()))).lines).toEqual([expect.stringMatching(/^DATA_DIR: there is no .*db\.json to copy/)]);
    expect((await migrate('lowdb', envFor(empty, stores.freshPrefix()))).lines).toEqual([expect.stringMatching(/^REDIS_URL: .* holds no users and no alert state/)]);
    expect((await migrate('lowdb', { DATA_DIR: empty, REDIS_URL: 'http://x' })).lines).toEqual([expect.stringMatching(/^REDIS_URL: expected a redis:\/\//)]);
  });
});

describe('npm run migrate: arguments', () => {
  it('takes --to redis|lowdb and --force, and answers anything else with the usage', () => {
    expect(parseMigrateArgs(['--to', 'redis'])).toEqual({ to: 'redis', force: false });
    expect(parseMigrateArgs(['--force', '--to=lowdb'])).toEqual({ to: 'lowdb', force: true });
    expect(parseMigrateArgs([])).toMatch(/^--to needs redis or lowdb\nusage: npm run migrate/);
    expect(parseMigrateArgs(['--to', 'redis', 'secret-looking'])).toMatch(/^unknown argument \(not shown\)/);
  });

  it('exits 2 for bad arguments and 1 for a refusal (the command line)', async () => {
    const run = async (args: string[]) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/operator/migrate-cli.ts', ...args], {
        env: { PATH: process.env.PATH, DATA_DIR: await tempDir() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      return { code, out };
    };
    const [bad, refused] = await Promise.all([run(['--to', 'mongo']), run(['--to', 'redis'])]);
    expect(bad).toMatchObject({ code: 2, out: expect.stringContaining('--to needs redis or lowdb') });
    expect(refused).toMatchObject({ code: 1, out: expect.stringMatching(/^REDIS_URL: not set/) });
  }, 20_000);
});
