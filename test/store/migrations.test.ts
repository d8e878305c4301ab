import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { detectVersion, migrate, MIGRATIONS, MigrationError } from '../../src/store/migrations.js';
import { databaseSchema, SCHEMA_VERSION } from '../../src/store/schema.js';
import { openStore, type JsonStore } from '../../src/store/store.js';
import { entry, removeTempDirs, tempDir } from './fixtures.js';

/** A file as the prototype (schema v0, no `version`) wrote it. */
const v0File = {
  users: [
    {
      id: 111,
      chatId: 111,
      language: 'ru-RU',
      timezone: 'Europe/Moscow',
      bankroll: 500,
      roundTo: 5,
      quietHours: '23:00-07:00',
      alertChatId: -100123,
      accessKey: 'ak-111',
      encryptedSecret: 'v1:aXY:dGFn:Y3Q',
      connectedAt: 1_700_000_000_000,
      filters: {
        arbs_prematch: {
          settings: { sports: [1], bookmakers: [3, 4], minProfit: 1.5 },
          paused: true,
          pausedReason: 'user',
          savedAt: 1_700_000_100_000,
        },
      },
      createdAt: 1_699_000_000_000,
    },
    {
      id: 222,
      chatId: 222,
      language: 'de',
      quietHours: 'sometimes',
      accessKey: null,
      encryptedSecret: null,
      createdAt: 1_699_500_000_000,
    },
  ],
  alertState: {
    '111:arbs_prematch': { 'item-9': entry({ chatId: 111 }) },
  },
};

const stores: JsonStore[] = [];

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close().catch(() => undefined)));
  await removeTempDirs();
});

describe('migrations', () => {
  it('has one step from each version below the current one', () => {
    expect(MIGRATIONS.map((m) => m.from)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i));
  });

  it('reads the version, with 0 for a file without one, and refuses what is not an object', () => {
    expect(detectVersion({ users: [] })).toBe(0);
    expect(detectVersion({ version: 1 })).toBe(1);
    expect(() => detectVersion([])).toThrow(MigrationError);
    expect(() => detectVersion(null)).toThrow(MigrationError);
    expect(() => detectVersion({ version: '1' })).toThrow(MigrationError);
    expect(() => detectVersion({ version: -1 })).toThrow(MigrationError);
  });

  it('turns the v0 shape into a file that passes the current schema', () => {
    const { data, from, applied } = migrate(structuredClone(v0File));
    expect(from).toBe(0);
    expect(applied).toHaveLength(1);
    const db = databaseSchema.parse(data);
    expect(Object.keys(db.users)).toEqual(['111', '222']);
    expect(db.users['111']).toMatchObject({
      id: 111,
      lang: 'ru',
      timeZone: 'Europe/Moscow',
      bankroll: 500,
      roundingStep: 5,
      quietHours: { from: '23:00', to: '07:00' },
      alertChatId: -100123,
      key: { accessKey: 'ak-111', secretEnc: 'v1:aXY:dGFn:Y3Q', connectedAt: 1_700_000_000_000 },
      filters: { arbs_prematch: { paused: true, pausedReason: 'user', savedAt: 1_700_000_100_000 } },
    });
    // Fields the prototype never had take the schema's defaults.
    expect(db.users['111']?.filters.arbs_prematch?.settings).toMatchObject({ sports: [1], bookmakers: [3, 4], minProfit: 1.5, maxOdds: null });
    expect(db.users['222']).toMatchObject({ lang: 'en', timeZone: 'UTC', quietHours: null, key: null, roundingStep: 1 });
    expect(db.alerts['111:arbs_prematch']?.['item-9']).toEqual(entry({ chatId: 111 }));
  });

  it('leaves a current file alone', () => {
    const current = { version: SCHEMA_VERSION, users: {}, alerts: {} };
    expect(migrate(current)).toEqual({ data: current, from: SCHEMA_VERSION, applied: [] });
  });

  it('refuses a v0 file that is not the v0 shape instead of half-converting it', () => {
    expect(() => migrate({ users: { '1': {} } })).toThrow(MigrationError);
    expect(() => migrate({ users: [{ id: 1, chatId: 1, createdAt: 1 }, { id: 1, chatId: 1, createdAt: 2 }] })).toThrow(/user 1 twice/);
  });

  it('reports a gap in the steps', () => {
    expect(() => migrate({ version: 0 }, 2, MIGRATIONS)).toThrow(/no migration from version 1/);
  });
});

describe('store: opening a v0 file', () => {
  it('migrates it, keeps a backup of the original, writes the new version at once, and reports it', async () => {
    const dir = await tempDir();
    const original = JSON.stringify(v0File, null, 2);
    await writeFile(join(dir, 'db.json'), original);
    const store = await openStore({ dataDir: dir, logger: silentLogger, clock: new ManualClock(0), debounceMs: 60_000 });
    stores.push(store);

    const backup = join(dir, 'db.json.v0-backup-1970-01-01T00-00-00-000Z');
    expect(store.loadReport).toEqual({ migratedFrom: 0, migrationBackup: backup });
    expect(await readFile(backup, 'utf8')).toBe(original);
    expect((await stat(backup)).mode & 0o777).toBe(0o600);

    expect(store.getUser(111)?.quietHours).toEqual({ from: '23:00', to: '07:00' });
    expect(store.findUserByAccessKey('ak-111')?.id).toBe(111);
    expect(store.alerts.get('111:arbs_prematch', 'item-9')).toEqual(entry({ chatId: 111 }));

    // Written without waiting for the debounce, so a crash now cannot lose the migration.
    expect(store.writeCount).toBe(1);
    const saved = JSON.parse(await readFile(join(dir, 'db.json'), 'utf8')) as { version: number; users: object };
    expect(saved.version).toBe(SCHEMA_VERSION);
    expect(Object.keys(saved.users)).toEqual(['111', '222']);
    expect((await readdir(dir)).sort()).toEqual(['bot.lock', 'db.json', 'db.json.v0-backup-1970-01-01T00-00-00-000Z']);

    await store.close();
    const again = await openStore({ dataDir: dir, logger: silentLogger });
    stores.push(again);
    expect(again.loadReport).toEqual({});
    expect(again.getUser(111)?.lang).toBe('ru');
  });

  it('moves a file that no step can read aside', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'db.json'), JSON.stringify({ users: 'everyone' }));
    const store = await openStore({ dataDir: dir, logger: silentLogger, clock: new ManualClock(0) });
    stores.push(store);
    expect(store.loadReport.movedAside).toBe(join(dir, 'db.json.corrupt-1970-01-01T00-00-00-000Z'));
    expect(store.loadReport.corruptReason).toMatch(/v0 file does not match its shape \(users:/);
    expect(store.listUsers()).toEqual([]);
  });
});
