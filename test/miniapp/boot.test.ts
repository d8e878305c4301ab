/**
 * The boot call (GET /app/api/boot) over real HTTP on the bot's server: one answer holding exactly
 * what /me and the asked screen's route answer, for the signed user only, refused as they are.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startHealthServer, type HealthServer } from '../../src/health/server.js';
import { makeLeg, positionSchema } from '../../src/ledger/model.js';
import { silentLogger } from '../../src/logger.js';
import { createMiniAppApi, REQUESTS_PER_MINUTE } from '../../src/miniapp/api.js';
import { bootSchema } from '../../src/miniapp/boot-contract.js';
import { signInitData } from '../../src/miniapp/init-data.js';
import { CSP, createMiniAppRoutes } from '../../src/miniapp/server.js';
import { openStore } from '../../src/store/store.js';
import type { Store } from '../../src/store/port.js';
import { testReports } from '../support/miniapp-reports.js';

const TOKEN = '999:boot-test-token';
const ME = 601;
const OTHER = 602;
let dir: string;
let store: Store;
let clock: ManualClock;
let server: HealthServer;
let base: string;

const initData = (userId: number, atMs = clock.now(), token = TOKEN) =>
  signInitData({ auth_date: String(Math.floor(atMs / 1000)), user: JSON.stringify({ id: userId, language_code: 'en' }) }, token);
const get = (path: string, auth = `tma ${initData(ME)}`, method = 'GET') => fetch(`${base}${path}`, { method, headers: auth ? { authorization: auth } : {} });

const arb = (id: string, event: string) =>
  positionSchema.parse({
    id, kind: 'arbs', service: 'prematch', itemId: `i${id}`, eventId: `e${id}`, sport: 'Football', event, placedAt: clock.now() - 3_600_000,
    legs: [makeLeg({ outcome: 0, bookmaker: 'Pinnacle', market: 'P1', odds: 2.1, stake: 100 }), makeLeg({ outcome: 1, bookmaker: 'Bet365', market: 'X2', odds: 2.1, stake: 100 })],
  });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'miniapp-boot-'));
  clock = new ManualClock();
  store = await openStore({ dataDir: dir, logger: silentLogger, clock, debounceMs: 20 });
  store.updateUser(ME, () => {}, { chatId: ME, lang: 'en' });
  await store.ledger.put(ME, arb('1', 'Mine vs Theirs'));
  await store.ledger.put(OTHER, arb('7', 'Other user event'));
  const api = createMiniAppApi({
    store, clock, reports: testReports(clock), logger: silentLogger, botToken: TOKEN, maxAgeSeconds: 3600,
    bookmakers: () => ({ '1': 'Pinnacle', '2': 'Betfair Exchange' }), sports: () => ({ '1': 'Football' }),
    filters: { save: () => Promise.resolve({ kind: 'saved' }), coverage: () => ({}) },
  });
  server = await startHealthServer({ port: 0, checks: [], metrics: { render: async () => '', contentType: 'text/plain' }, miniApp: createMiniAppRoutes(api, { get: () => undefined }) });
  base = `http://127.0.0.1:${server.port}`;
});

afterEach(async () => {
  await server.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('GET /app/api/boot', () => {
  it("answers /me and the unfiltered /ledger of the signed user in one body, the contract's shape, with the API's headers", async () => {
    const res = await get('/app/api/boot?screen=ledger');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    const boot = bootSchema.parse(await res.json());
    expect(boot).toEqual({ me: await (await get('/app/api/me')).json(), ledger: await (await get('/app/api/ledger')).json() });
    expect(boot.me.userId).toBe(ME);
    expect(boot.ledger!.open.map((p) => p.event)).toEqual(['Mine vs Theirs']);
    expect(JSON.stringify(boot)).not.toContain('Other user event');
  });

  it('answers the filters or the books screen with its own route, and the ledger for a screen it does not know', async () => {
    const filters = bootSchema.parse(await (await get('/app/api/boot?screen=filters')).json());
    expect(Object.keys(filters).sort()).toEqual(['filters', 'me']);
    expect(filters.filters).toEqual(await (await get('/app/api/filters')).json());
    const books = bootSchema.parse(await (await get('/app/api/boot?screen=books')).json());
    expect(Object.keys(books).sort()).toEqual(['books', 'me']);
    expect(books.books).toEqual(await (await get('/app/api/books')).json());
    for (const q of ['?screen=../positions', '?screen=', '']) expect(Object.keys((await (await get(`/app/api/boot${q}`)).json()) as object).sort()).toEqual(['ledger', 'me']);
  });

  it('refuses forged, expired and missing initData, and a wrong method, in words, with nothing of the ledger', async () => {
    const forged = initData(ME, clock.now(), '999:not-the-token');
    for (const [auth, code] of [[`tma ${forged}`, 'unauthorized'], [`tma ${initData(ME, clock.now() - 3601_000)}`, 'expired'], ['', 'unauthorized']] as const) {
      const res = await get('/app/api/boot', auth);
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ error: { code } });
      expect(text).not.toContain('Mine vs Theirs');
    }
    const post = await get('/app/api/boot', `tma ${initData(ME)}`, 'POST');
    expect(post.status).toBe(405);
  });

  it('counts as the two calls it stands for against the per-user cap', async () => {
    for (let i = 0; i < REQUESTS_PER_MINUTE / 2; i++) expect((await get('/app/api/boot')).status).toBe(200);
    expect((await get('/app/api/me')).status).toBe(429);
    expect((await get('/app/api/boot')).status).toBe(429);
    expect((await get('/app/api/boot', `tma ${initData(OTHER)}`)).status).toBe(200);
  });
});
