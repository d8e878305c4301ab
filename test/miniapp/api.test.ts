/**
 * The Mini App's API over real HTTP on the bot's own server (startHealthServer with the routes),
 * against the embedded store: each defence refuses what it must (forged, expired, future initData,
 * another user's position, an oversized body, a wrong method, a path out of /app/assets).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startHealthServer, type HealthServer } from '../../src/health/server.js';
import { makeLeg, positionSchema, type Position } from '../../src/ledger/model.js';
import { silentLogger } from '../../src/logger.js';
import { createMiniAppApi, REQUESTS_PER_MINUTE, type MiniAppApiOptions } from '../../src/miniapp/api.js';
import { CSP, createMiniAppRoutes, type AssetProvider } from '../../src/miniapp/server.js';
import { signInitData } from '../../src/miniapp/init-data.js';
import { openStore } from '../../src/store/store.js';
import type { Store } from '../../src/store/port.js';
import type { SaveOutcome } from '../../src/bot/actions/save-filter.js';
import { filterSettingsSchema, type FilterSettings } from '../../src/service/filter-model.js';
import type { Service } from '../../src/service/services.js';
import type { ServiceCoverage } from '../../src/scheduler/port.js';
import { MARKET_GROUPS } from '../../src/service/market-groups.js';
import type { FiltersView } from '../../src/miniapp/contract.js';
import { en } from '../../src/locales/en.js';
import { ru as ruTable } from '../../src/locales/ru.js';
import { testReports, type SentFile } from '../support/miniapp-reports.js';
import { readLedgerCsv } from '../../src/ledger/csv.js';
import { request as httpRequest } from 'node:http';

const TOKEN = '999:api-test-token';
const ME = 501;
const OTHER = 502;
const BOOKS = { '1': 'Pinnacle', '2': 'Betfair Exchange', '3': 'Bet365' };
const asked: string[] = [];
const assets: AssetProvider = {
  get: (name) =>
    asked.push(name) && name === 'index.html'
      ? { body: Buffer.from('<!doctype html><title>app</title>'), type: 'text/html; charset=utf-8' }
      : name === 'app-abc123.js'
        ? { body: Buffer.from('console.log(1)'), type: 'text/javascript' }
        : undefined,
};

let dir: string;
let store: Store;
let clock: ManualClock;
let server: HealthServer;
let base: string;
let saves: { userId: number; service: Service; settings: FilterSettings }[];
let budgetRefuses: boolean;
let sentFiles: SentFile[];
let sendRefuses: boolean;

/** The chat refuses files while `sendRefuses` is set, as Telegram does for a user who blocked the bot. */
const refusingWhen = (r: MiniAppApiOptions['reports']): MiniAppApiOptions['reports'] => ({
  ...r,
  sendDocument: (...a) => (sendRefuses ? Promise.resolve({ ok: false, reason: 'Forbidden: bot was blocked by the user' }) : r.sendDocument(...a)),
});

const initData = (userId: number, atMs = clock.now(), token = TOKEN, lang = 'en') =>
  signInitData({ auth_date: String(Math.floor(atMs / 1000)), query_id: 'q', user: JSON.stringify({ id: userId, first_name: 'U', language_code: lang }) }, token);

const call = (path: string, init: RequestInit & { user?: number; auth?: string } = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { ...(init.auth !== '' ? { authorization: init.auth ?? `tma ${initData(init.user ?? ME)}` } : {}), ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });

function arb(id: string, placedAt: number): Position {
  return positionSchema.parse({
    id,
    kind: 'arbs',
    service: 'prematch',
    itemId: `i${id}`,
    eventId: `e${id}`,
    sport: 'Football',
    event: 'A vs B',
    placedAt,
    legs: [makeLeg({ outcome: 0, bookmaker: 'Pinnacle', market: 'P1', odds: 2.1, stake: 100 }), makeLeg({ outcome: 1, bookmaker: 'Bet365', market: 'X2', odds: 2.1, stake: 100 })],
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'miniapp-api-'));
  clock = new ManualClock();
  store = await openStore({ dataDir: dir, logger: silentLogger, clock, debounceMs: 20 });
  store.updateUser(ME, () => {}, { chatId: ME, lang: 'en' });
  await store.ledger.put(ME, arb('1', clock.now() - 3_600_000));
  await store.ledger.put(OTHER, arb('7', clock.now() - 3_600_000));
  saves = [];
  sentFiles = [];
  sendRefuses = false;
  const filters = {
    save: async (userId: number, service: Service, settings: FilterSettings): Promise<SaveOutcome> => {
      saves.push({ userId, service, settings });
      return budgetRefuses ? { kind: 'draft' } : { kind: 'saved' };
    },
    coverage: (): Partial<Record<Service, ServiceCoverage>> => ({ arbs_prematch: { share: 0.5, intervalMs: 4000, state: 'active' } }),
  };
  budgetRefuses = false;
  const api = createMiniAppApi({ store, clock, logger: silentLogger, botToken: TOKEN, maxAgeSeconds: 3600, bookmakers: () => BOOKS, sports: () => ({ '1': 'Football' }), filters, reports: refusingWhen(testReports(clock, sentFiles)) });
  server = await startHealthServer({ port: 0, checks: [], metrics: { render: async () => '', contentType: 'text/plain' }, miniApp: createMiniAppRoutes(api, assets) });
  base = `http://127.0.0.1:${server.port}`;
});

afterEach(async () => {
  await server.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('Mini App API auth', () => {
  it('answers the signed user, with the strict CSP, nosniff and no cookie', async () => {
    const res = await call('/app/api/me');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ userId: ME, lang: 'en', keyStored: false });
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a forged hash, another bot token, no header: 401 in words', async () => {
    const forged = initData(ME).replace(/hash=([0-9a-f])/, (_m, c: string) => `hash=${c === '0' ? '1' : '0'}`);
    for (const auth of [`tma ${forged}`, `tma ${initData(ME, clock.now(), '999:other')}`, '']) {
      const res = await call('/app/api/me', { auth });
      expect(res.status).toBe(401);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unauthorized');
      expect(body.error.message).toMatch(/open it again/);
    }
  });

  it('refuses expired initData and initData from the future', async () => {
    const old = await call('/app/api/me', { auth: `tma ${initData(ME, clock.now() - 3601_000)}` });
    expect(old.status).toBe(401);
    expect(((await old.json()) as { error: { code: string } }).error.code).toBe('expired');
    const future = await call('/app/api/me', { auth: `tma ${initData(ME, clock.now() + 120_000)}` });
    expect(future.status).toBe(401);
  });

  it('answers in Russian when the user is unknown and Telegram says ru', async () => {
    const res = await call('/app/api/nothing', { auth: `tma ${initData(777, clock.now(), TOKEN, 'ru')}` });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/Не найдено/);
  });

  it('caps a user at REQUESTS_PER_MINUTE, then lets them in the next minute', async () => {
    for (let i = 0; i < REQUESTS_PER_MINUTE; i++) expect((await call('/app/api/me')).status).toBe(200);
    expect((await call('/app/api/me')).status).toBe(429);
    expect((await call('/app/api/me', { user: OTHER })).status).toBe(200);
    await clock.advance(60_001);
    expect((await call('/app/api/me')).status).toBe(200);
  });
});

describe('Mini App ledger', () => {
  it('lists the open position with its results; settles it, with an undo the chat honours; undoes it', async () => {
    const view = (await (await call('/app/api/ledger')).json()) as { open: { id: string; legs: { results: string[] }[] }[]; openTotal: number };
    expect(view.openTotal).toBe(1);
    expect(view.open[0]!.legs[0]!.results).toContain('won');
    const settled = await call('/app/api/positions/1/settle', { method: 'POST', body: JSON.stringify({ result: { outcome: 0 } }) });
    expect(settled.status).toBe(200);
    const s = (await settled.json()) as { position: { settled: boolean; pnl: number; undo: { n: number } } };
    expect(s.position.settled).toBe(true);
    expect(s.position.pnl).toBeCloseTo(10);
    expect((await store.ledger.book(ME)).positions[0]!.settledAt).toBe(clock.now());
    const undone = await call('/app/api/positions/1/undo', { method: 'POST', body: JSON.stringify({ n: s.position.undo.n }) });
    expect(undone.status).toBe(200);
    expect((await store.ledger.book(ME)).positions[0]!.settledAt).toBeNull();
  });

  it("refuses the undo once the chat's window is over", async () => {
    const s = (await (await call('/app/api/positions/1/settle', { method: 'POST', body: JSON.stringify({ result: 'void' }) })).json()) as { position: { undo: { n: number } } };
    await clock.advance(15 * 60_000 + 1);
    const res = await call('/app/api/positions/1/undo', { method: 'POST', body: JSON.stringify({ n: s.position.undo.n }) });
    expect(res.status).toBe(409);
  });

  it("finds no other user's position: 404, and their ledger is unchanged", async () => {
    const res = await call('/app/api/positions/7/settle', { method: 'POST', body: JSON.stringify({ result: 'void' }) });
    expect(res.status).toBe(404);
    expect((await store.ledger.book(OTHER)).positions[0]!.settledAt).toBeNull();
  });

  it('edits a leg, and refuses bad input in words without changing anything', async () => {
    const ok = await call('/app/api/positions/1/edit', { method: 'POST', body: JSON.stringify({ leg: 1, odds: 2.2, stake: 95 }) });
    expect(ok.status).toBe(200);
    expect((await store.ledger.book(ME)).positions[0]!.legs[1]).toMatchObject({ odds: 2.2, stake: 95 });
    for (const body of [{ leg: 1, odds: 0.5 }, { leg: 1, stake: 10, extra: 1 }, { leg: 'x' }]) {
      const bad = await call('/app/api/positions/1/edit', { method: 'POST', body: JSON.stringify(body) });
      expect(bad.status).toBe(400);
      const text = await bad.text();
      expect(text).not.toMatch(/at .*\.ts|node_modules/);
    }
    expect((await store.ledger.book(ME)).positions[0]!.legs[1]).toMatchObject({ odds: 2.2, stake: 95 });
  });

  it('refuses an oversized body with 413 before reading it', async () => {
    const res = await call('/app/api/positions/1/edit', { method: 'POST', body: JSON.stringify({ leg: 0, pad: 'x'.repeat(70_000) }) });
    expect(res.status).toBe(413);
  });

  it('refuses a wrong method with 405', async () => {
    expect((await call('/app/api/positions/1/settle')).status).toBe(405);
    expect((await call('/app/api/ledger', { method: 'DELETE' })).status).toBe(405);
  });

  it('serves the same CSV as /export: settled and open positions, narrowed by the screen', async () => {
    await store.ledger.put(ME, { ...arb('2', clock.now() - 1_800_000), sport: 'Tennis' });
    await call('/app/api/positions/1/settle', { method: 'POST', body: JSON.stringify({ result: 'void' }) });
    const res = await call('/app/api/ledger.csv');
    expect(res.headers.get('content-type')).toMatch(/text\/csv/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="ledger-start-today.csv"');
    const rows = readLedgerCsv(await res.text());
    expect(rows.map((r) => `${r.position_id}:${r.status}`)).toEqual(['1:void', '1:void', '2:pending', '2:pending']);
    const tennis = readLedgerCsv(await (await call('/app/api/ledger.csv?sport=Tennis')).text());
    expect(tennis.map((r) => r.position_id)).toEqual(['2', '2']);
    const none = await call('/app/api/ledger.csv?sport=Curling');
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: { message: string } }).error.message).toBe('Your ledger has nothing in this period yet.');
  });

  it('gzips a long answer for a client that takes it, and only then', async () => {
    for (let n = 2; n <= 9; n++) await store.ledger.put(ME, arb(String(n), clock.now() - 3_600_000 + n));
    const packed = await call('/app/api/ledger');
    expect(packed.headers.get('content-encoding')).toBe('gzip');
    expect(packed.headers.get('vary')).toBe('Accept-Encoding');
    const view = (await packed.json()) as { open: { id: string }[] };
    expect(view.open.map((p) => p.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    const plain = await new Promise<{ encoding: string | undefined; body: string }>((resolve, reject) => {
      const req = httpRequest(`${base}/app/api/ledger`, { headers: { authorization: `tma ${initData(ME)}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ encoding: res.headers['content-encoding'], body }));
      });
      req.on('error', reject).end();
    });
    expect(plain.encoding).toBeUndefined();
    expect(JSON.parse(plain.body)).toEqual(view);
    // Short answers go plain: compressing them would cost more than it saves.
    expect((await call('/app/api/me')).headers.get('content-encoding')).toBeNull();
  });

  it('sends the same file to the chat with the bot, and says so', async () => {
    const res = await call('/app/api/ledger.csv/send?from=2020-01-01', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ files: 1, legs: 2 });
    expect(sentFiles).toHaveLength(1);
    const [file] = sentFiles;
    expect(file!.userId).toBe(ME);
    expect(file!.fileName).toBe('ledger-2020-01-01-today.csv');
    expect(file!.caption).toContain('2 legs');
    expect(file!.bytes.toString('utf8')).toBe(await (await call('/app/api/ledger.csv?from=2020-01-01')).text());
    expect((await call('/app/api/ledger.csv/send')).status).toBe(405);
    sendRefuses = true;
    const refused = await call('/app/api/ledger.csv/send', { method: 'POST' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'Telegram refused to send the file (Forbidden: bot was blocked by the user). Open the chat with the bot, press Start if it asks, and try again; /export there sends the same file.',
    );
  });

  it("shares the chat's cap on ledger reports: the 13th file in 10 minutes is refused in words, and later taken", async () => {
    for (let i = 0; i < 12; i++) expect((await call(i % 2 ? '/app/api/ledger.csv' : '/app/api/ledger.csv/send', i % 2 ? {} : { method: 'POST' })).status).toBe(200);
    const capped = await call('/app/api/ledger.csv');
    expect(capped.status).toBe(429);
    expect(((await capped.json()) as { error: { message: string } }).error.message).toMatch(/^⏳ That was 12 ledger reports .* the next one is possible in /);
    expect(sentFiles).toHaveLength(6);
    await clock.advance(10 * 60_000);
    expect((await call('/app/api/ledger.csv')).status).toBe(200);
  });
});

describe('Mini App bookmakers', () => {
  it('lists exchanges with their default commission and saves a row through the /book store rules', async () => {
    const list = (await (await call('/app/api/books')).json()) as { books: { id: string; defaultCommission: number | null }[] };
    expect(list.books.find((b) => b.id === '2')?.defaultCommission).toBeGreaterThan(0);
    const put = await call('/app/api/books/3', { method: 'PUT', body: JSON.stringify({ settings: { max: 300, step: 5 } }) });
    expect(put.status).toBe(200);
    expect(store.getUser(ME)!.books['3']).toEqual({ max: 300, step: 5 });
    const bad = await call('/app/api/books/3', { method: 'PUT', body: JSON.stringify({ settings: { min: 500, max: 300 } }) });
    expect(bad.status).toBe(409);
    expect(store.getUser(ME)!.books['3']).toEqual({ max: 300, step: 5 });
  });
});

describe('Mini App filters', () => {
  it("saves through /filter's path as the signed user, says draft when the budget refuses, and refuses a bad filter or service", async () => {
    const filter = { sports: [1], bookmakers: [1, 3], minProfit: 1.5 };
    const put = await call('/app/api/filters/arbs_prematch', { method: 'PUT', body: JSON.stringify({ filter }) });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ saved: 'saved', coverage: { share: 0.5, intervalSeconds: 4, fits: true } });
    expect(saves).toMatchObject([{ userId: ME, service: 'arbs_prematch', settings: { sports: [1], bookmakers: [1, 3], minProfit: 1.5 } }]);
    budgetRefuses = true;
    expect(await (await call('/app/api/filters/arbs_prematch', { method: 'PUT', body: JSON.stringify({ filter }) })).json()).toMatchObject({ saved: 'draft' });
    expect((await call('/app/api/filters/arbs_prematch', { method: 'PUT', body: JSON.stringify({ filter: { minProfit: 'x' } }) })).status).toBe(400);
    expect((await call('/app/api/filters/nope', { method: 'PUT', body: JSON.stringify({ filter }) })).status).toBe(404);
    expect(saves).toHaveLength(2);
    const cov = await call('/app/api/filters/coverage', { method: 'POST', body: JSON.stringify({ service: 'arbs_prematch', filter }) });
    expect(await cov.json()).toEqual({ share: 0.5, intervalSeconds: 4, fits: true });
  });
});

describe('Mini App filters: market groups and per-sport minimums', () => {
  it("lists every market group named as the chat names it, in the user's language", async () => {
    store.updateUser(ME, (u) => void (u.filters.arbs_prematch = { settings: filterSettingsSchema.parse({ marketsOff: ['odd_even'] }), paused: false, pausedReason: null, savedAt: 0 }));
    const view = (await (await call('/app/api/filters')).json()) as FiltersView;
    expect(view.dictionaries.markets.map((m) => m.id)).toEqual([...MARKET_GROUPS]);
    expect(view.dictionaries.markets.find((m) => m.id === 'odd_even')?.name).toBe(en.mg_odd_even);
    expect(view.services[0]?.filter.marketsOff).toEqual(['odd_even']);
    store.updateUser(ME, (u) => void (u.lang = 'ru'));
    const ru = (await (await call('/app/api/filters')).json()) as FiltersView;
    expect(ru.dictionaries.markets.find((m) => m.id === 'corners')?.name).toBe(ruTable.mg_corners);
  });

  it('saves groups left out and a per-sport minimum, and refuses what /filter refuses with nothing saved', async () => {
    const put = (service: string, filter: object) => call(`/app/api/filters/${service}`, { method: 'PUT', body: JSON.stringify({ filter }) });
    const ok = await put('arbs_prematch', { marketsOff: ['odd_even', 'corners'], minProfitBySport: { '1': 2.5 } });
    expect(ok.status).toBe(200);
    expect(saves[0]?.settings).toMatchObject({ marketsOff: ['odd_even', 'corners'], minProfitBySport: { '1': 2.5 } });
    const refusals: [string, object, string][] = [
      ['arbs_prematch', { marketsOff: [...MARKET_GROUPS] }, en.miniapp_markets_all_off],
      ['arbs_prematch', { minProfitBySport: { '1': -1 } }, 'Football: -1 is negative'],
      ['arbs_prematch', { minProfitBySport: { '99': 2 } }, 'Unknown sport ids: 99'],
      ['valuebets_prematch', { minProfitBySport: { '1': 2 } }, 'does not apply to valuebets_prematch'],
      ['arbs_prematch', { marketsOff: ['snooker'] }, 'marketsOff'],
    ];
    for (const [service, filter, words] of refusals) {
      const res = await put(service, filter);
      expect(res.status, JSON.stringify(filter)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(words);
    }
    // A middle may lose a little on a miss: the chat takes a negative minimum there, and so does the form.
    expect((await put('middles_prematch', { minProfitBySport: { '1': -1 } })).status).toBe(200);
    expect(saves).toHaveLength(2);
  });
});

describe('Mini App assets', () => {
  it('serves the page and a hashed asset, and refuses path traversal', async () => {
    expect((await fetch(`${base}/app/`)).status).toBe(200);
    const js = await fetch(`${base}/app/assets/app-abc123.js`);
    expect(js.headers.get('cache-control')).toMatch(/immutable/);
    expect(js.headers.get('content-security-policy')).toBe(CSP);
    for (const p of ['/app/assets/..%2f..%2fpackage.json', '/app/assets/../../package.json', '/app/assets/%2e%2e/index.html', '/app/assets/.env']) {
      expect((await fetch(`${base}${p}`)).status).toBe(404);
    }
    // A provider reading files by name never sees a path: nothing with a slash or a dot-dot reaches it.
    expect(asked.filter((n) => n.includes('/') || n.includes('..') || n.startsWith('.'))).toEqual([]);
  });
});
