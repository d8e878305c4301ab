import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import { namesFor } from '../../src/service/dictionaries-model.js';
import { DICTIONARIES_FILE, parseDictionaries, refreshIntervalMs } from '../../src/service/dictionaries.js';
import { captureLogs, WARN } from '../support/logs.js';
import { configFor, sendJson, settle, startLocalServer, type LocalServer } from './helpers.js';

const HOUR = 3_600_000;

const wire = (lang: string) => ({
  lang,
  bookmakers: { '7': 'Pinnacle', '39': lang === 'ru' ? 'Бет365' : 'Bet365' },
  live_bookmakers: [7, '39'],
  sports: { '6': lang === 'ru' ? 'Теннис' : 'Tennis' },
  odds_groups: { '1': 'Main' },
  odds_sections: { '3': 'totals' },
  odds_types: { '1': { title_short: 'P1', title_full: 'Home win', lay: false, section_id: 1 }, '9': { title_short: 'TO(%s)', title_full: 'Total over', lay: false, section_id: 3 } },
  odds_types_reflections: { '1': 2, '2': 1 },
});

describe('parseDictionaries', () => {
  it('reads the likely layout into the bot model', () => {
    const d = parseDictionaries(wire('en'), 'en', 'x');
    expect(d).toEqual({
      lang: 'en',
      bookmakers: { '7': 'Pinnacle', '39': 'Bet365' },
      liveBookmakers: [7, 39],
      sports: { '6': 'Tennis' },
      oddsGroups: { '1': 'Main' },
      oddsSections: { '3': 'totals' },
      oddsTypes: {
        '1': { titleShort: 'P1', titleFull: 'Home win', lay: false, sectionId: 1 },
        '9': { titleShort: 'TO(%s)', titleFull: 'Total over', lay: false, sectionId: 3 },
      },
      reflections: { '1': 2, '2': 1 },
    });
    expect(namesFor(d, 'en').market(9, '2.5')).toBe('TO(2.5)');
    expect(namesFor(d, 'en').bookmaker(123)).toBe('bookmaker #123');
  });

  it('accepts names as {name} objects, lists with ids, a data wrapper, and partial odds types', () => {
    const d = parseDictionaries(
      {
        data: {
          bookmakers: [{ id: 7, name: 'Pinnacle' }, { id: 'x' }, 'junk'],
          sports: { '1': { name: 'Football' }, '2': 42, '3': '' },
          odds_types: { '1': 'P1', '2': { title_full: 'Away win', lay: 1 }, '3': { nothing: true } },
          odds_types_reflections: [
            [1, 2],
            [2, '1'],
          ],
        },
      },
      'ru',
      'x',
    );
    expect(d.bookmakers).toEqual({ '7': 'Pinnacle' });
    expect(d.sports).toEqual({ '1': 'Football', '2': '42' });
    expect(d.oddsTypes).toEqual({
      '1': { titleShort: 'P1', titleFull: 'P1', lay: false, sectionId: undefined },
      '2': { titleShort: 'Away win', titleFull: 'Away win', lay: true, sectionId: undefined },
    });
    expect(d.reflections).toEqual({ '1': 2, '2': 1 });
    expect(d.liveBookmakers).toEqual([]);
  });

  it('is malformed when none of the main maps is there', () => {
    for (const body of [null, [], 'x', {}, { bookmakers: 'no' }]) {
      expect(() => parseDictionaries(body, 'en', 'dictionaries request (en)')).toThrowError(
        expect.objectContaining({ kind: 'malformed' }) as Error,
      );
    }
  });
});

describe('refreshIntervalMs', () => {
  it('keeps all languages inside a third of the daily limit, never under an hour', () => {
    expect(refreshIntervalMs(24)).toBe(6 * HOUR);
    expect(refreshIntervalMs(24, 1)).toBe(3 * HOUR);
    expect(refreshIntervalMs(1)).toBe(144 * HOUR);
    expect(refreshIntervalMs(100_000)).toBe(HOUR);
  });
});

describe('dictionaries in the client (local server, cache on disk)', () => {
  let server: LocalServer;
  let dir: string;
  let clock: ManualClock;
  let fail: boolean;
  let clients: ServiceClientWithLimits[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bb-dicts-'));
    clock = new ManualClock();
    fail = false;
    clients = [];
    server = await startLocalServer((req, res) => {
      if (fail) return sendJson(res, 503, { error: 'down' });
      const m = /^\/dicts\/v1(?:\/(\w+))?$/.exec(req.path);
      if (!m) return sendJson(res, 404, {});
      const lang = m[1] ?? 'default';
      return sendJson(res, 200, wire(lang));
    });
  });
  afterEach(async () => {
    for (const c of clients) await c.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const make = (overrides: Parameters<typeof configFor>[1] = {}, logger: Logger = silentLogger) => {
    const c = createServiceClient({
      config: configFor(server.url, { DATA_DIR: dir, ...overrides }),
      logger,
      clock,
      random: () => 0.5,
    });
    clients.push(c);
    return c;
  };

  it('fetches once for concurrent callers and serves a restart from the cache file', async () => {
    const first = make();
    expect(first.cachedDictionaries('en')).toBeUndefined();
    const [a, b, c] = await Promise.all([first.dictionaries('en'), first.dictionaries('en'), first.dictionaries('en')]);
    expect(a?.sports['6']).toBe('Tennis');
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect((await first.dictionaries('ru'))?.sports['6']).toBe('Теннис');
    expect(server.seen.map((r) => r.path)).toEqual(['/dicts/v1/en', '/dicts/v1/ru']);
    await first.close();

    const file = JSON.parse(await readFile(join(dir, DICTIONARIES_FILE), 'utf8')) as { langs: Record<string, { fetchedAt: number }> };
    expect(file.langs.en?.fetchedAt).toBe(clock.now());

    await clock.advance(2 * HOUR);
    const restarted = make();
    expect(restarted.cachedDictionaries('ru')?.bookmakers['39']).toBe('Бет365');
    expect((await restarted.dictionaries('en'))?.bookmakers['7']).toBe('Pinnacle');
    expect(server.seen).toHaveLength(2); // no request after the restart
  });

  it('refreshes a stale copy, and keeps serving the old one when the refresh fails', async () => {
    const c = make();
    const old = await c.dictionaries('en');
    await clock.advance(6 * HOUR);
    fail = true;
    const served = await settle(clock, c.dictionaries('en'), 100);
    expect(served).toEqual(old);
    expect(server.seen).toHaveLength(4); // one fetch and three tries of the refresh
    // A failed refresh is not tried again on every call.
    expect(await c.dictionaries('en')).toEqual(old);
    expect(server.seen).toHaveLength(4);
    fail = false;
    await clock.advance(15 * 60_000);
    await c.dictionaries('en');
    expect(server.seen).toHaveLength(5);
  });

  it('falls back to GET /v1 where the language is unknown', async () => {
    server.handle((req, res) => {
      if (req.path === '/dicts/v1') return sendJson(res, 200, wire('default'));
      return sendJson(res, 404, { error: 'no such language' });
    });
    const c = make();
    const d = await c.dictionaries('ru');
    expect(d?.lang).toBe('ru');
    expect(d?.sports['6']).toBe('Tennis');
    expect(server.seen.map((r) => r.path)).toEqual(['/dicts/v1/ru', '/dicts/v1']);
  });

  it('never goes over the daily limit: with no room it serves what it has', async () => {
    const c = make({ LIMIT_DICTS_PER_DAY: 1 });
    await c.dictionaries('en');
    expect(await c.dictionaries('ru')).toBeUndefined();
    expect(server.seen).toHaveLength(1);
    expect(c.limits.budget({ kind: 'dicts' })).toMatchObject({ used: 1, left: 0 });
  });

  it('ignores an unreadable cache file and fetches again', async () => {
    await writeFile(join(dir, DICTIONARIES_FILE), '{"version": 1, "langs": {"en": 5}}');
    const c = make();
    expect(c.cachedDictionaries('en')).toBeUndefined();
    expect((await c.dictionaries('en'))?.sports['6']).toBe('Tennis');
  });

  it('tells the operator when the cache file cannot be read at all, but not when there is none yet', async () => {
    const quiet = captureLogs();
    make({}, quiet.logger);
    expect(quiet.text()).not.toContain('dictionaries cache');
    await mkdir(join(dir, DICTIONARIES_FILE));
    const logs = captureLogs();
    const c = make({}, logs.logger);
    const warning = logs.records().find((r) => r.msg === 'dictionaries cache could not be read; it will be fetched again');
    expect(warning?.level).toBe(WARN);
    expect(JSON.stringify(warning?.err)).toContain('EISDIR');
    expect(c.cachedDictionaries('en')).toBeUndefined();
  });
});
