/**
 * DEVELOPMENT ONLY: a tiny stand-in for the Mini App's API (src/miniapp/contract.ts, fixed sample
 * data) so the page, its bench and its screenshots could be built before the real routes landed.
 * The browser tests of record must run against the real bot's server; this must not replace them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AssetProvider } from '../../src/miniapp/asset-provider.js';
import { translator } from '../../src/locales/i18n.js';
import { marketGroupChoices } from '../../src/miniapp/filter-form.js';
import type { ApiPosition, BookRow, Filter, FiltersView, LedgerView } from '../../src/miniapp/contract.js';
import { CSP, serveAsset } from '../../src/miniapp/server.js';
const NOW = Date.UTC(2026, 10, 28);

export interface DevStub {
  url: string;
  /** Every API request the page made: method, path, body. */
  calls: { method: string; path: string; body: unknown }[];
  close(): Promise<void>;
}

function leg(index: number, outcome: number, bookmaker: string, market: string, odds: number, stake: number): ApiPosition['legs'][number] {
  return { index, outcome, bookmaker, market, odds, stake, lay: false, status: 'placed', result: null, results: ['won', 'lost', 'void'] };
}

function position(id: string, kind: ApiPosition['kind'], service: string, sport: string, event: string, legs: ApiPosition['legs']): ApiPosition {
  return { id, kind, service, sport, league: '', event, eventStart: NOW + 86_400_000, placedAt: NOW - 3_600_000, settledAt: null, settled: false, currency: 'EUR', pnl: null, legs, undo: null };
}

function sampleLedger(): LedgerView {
  const days = [];
  let cumulative = 0;
  const start = Date.UTC(2026, 9, 1);
  for (let i = 0; i < 58; i++) {
    const pnl = Math.round((Math.sin(i * 1.7) * 40 + 14 + (i % 7) * 3) * 100) / 100;
    cumulative = Math.round((cumulative + pnl) * 100) / 100;
    days.push({ day: new Date(start + i * 86_400_000).toISOString().slice(0, 10), pnl, cumulative, turnover: 600 + ((i * 137) % 900), clvPct: 1.2 });
  }
  return {
    from: start,
    to: NOW,
    currency: 'EUR',
    summary: {
      totals: { pnl: cumulative, turnover: 48_210, count: 412, yieldPct: (cumulative / 48_210) * 100 },
      startBank: 10_000, roiOnBankPct: cumulative / 100, winRatePct: 51.2, arbs: { count: 301, expected: 1_042.5, realised: 1_101.3 },
      clv: { count: 380, meanPct: 1.42, weightedPct: 1.3, beatSharePct: 61 }, legsClv: null, open: 3, byService: [], byBookmaker: [], bySport: [],
    },
    days,
    choices: { services: ['arbs_prematch', 'arbs_live', 'valuebets_prematch'], bookmakers: ['Pinnacle', 'Bet365', 'Betfair', '1xBet'], sports: ['Football', 'Tennis', 'Basketball'] },
    open: [
      position('41', 'arbs', 'arbs_prematch', 'Football', 'Arsenal – Chelsea', [leg(0, 0, 'Pinnacle', 'Over 2.5', 2.08, 240), leg(1, 1, 'Bet365', 'Under 2.5', 2.02, 247)]),
      position('42', 'valuebets', 'valuebets_prematch', 'Tennis', 'Sinner – Alcaraz', [leg(0, 0, 'Betfair', 'Alcaraz', 2.64, 50)]),
      position('43', 'middles', 'arbs_live', 'Basketball', 'Lakers – Celtics', [leg(0, 0, '1xBet', 'Over 219.5', 1.95, 150), leg(1, 1, 'Pinnacle', 'Under 223.5', 2.11, 139)]),
    ],
    openTotal: 3,
  };
}

const named = (names: string[]) => names.map((name, i) => ({ id: i + 1, name }));
const coverageOf = (share: number) => ({ share, intervalSeconds: 20, fits: share >= 0.5 });

function sampleFilters(): FiltersView {
  const f = (sports: number[], bookmakers: number[], minProfit: number): Filter => ({ sports, bookmakers, minProfit, maxProfit: 15, minOdds: 1.3, maxOdds: 6, hoursToStart: 48, minOvervalue: null, marketsOff: [], minProfitBySport: {} });
  return {
    services: [
      { service: 'arbs_prematch', filter: f([1, 2], [1, 2, 3], 1.5), draft: null, coverage: coverageOf(1) },
      { service: 'valuebets_prematch', filter: { ...f([1], [1], 0), minOvervalue: 3 }, draft: null, coverage: coverageOf(0.82) },
    ],
    dictionaries: {
      sports: named(['Football', 'Tennis', 'Basketball', 'Ice hockey', 'Volleyball', 'Handball', 'Baseball', 'Esports', 'Table tennis', 'MMA', 'Boxing', 'Rugby']),
      bookmakers: named(['Pinnacle', 'Bet365', 'Betfair', 'Smarkets', 'Matchbook', '1xBet', 'William Hill', 'Unibet', 'Bwin', 'Marathonbet', 'Betway', 'Sbobet']),
      markets: marketGroupChoices(translator('en')),
    },
  };
}

function sampleBooks(): BookRow[] {
  return [
    { id: '3', name: 'Betfair', settings: { max: 500, min: 2, step: 1 }, defaultCommission: 5, status: 'ok' },
    { id: '4', name: 'Smarkets', settings: {}, defaultCommission: 2, status: 'ok' },
    { id: '1', name: 'Pinnacle', settings: { max: 1000, min: 5, step: 1 }, defaultCommission: null, status: 'ok' },
    { id: '2', name: 'Bet365', settings: { max: 250, min: 1, step: 0.5, status: 'limited' }, defaultCommission: null, status: 'limited' },
    { id: '6', name: '1xBet', settings: { max: 300, status: 'closed' }, defaultCommission: null, status: 'closed' },
  ];
}

export async function startDevStub(assets: AssetProvider, initData: string): Promise<DevStub> {
  const ledger = sampleLedger();
  const filters = sampleFilters();
  const books = sampleBooks();
  const calls: DevStub['calls'] = [];
  const settled = new Map<string, ApiPosition>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json', 'content-security-policy': CSP }).end(JSON.stringify(body));
    // The page as the bot serves it (its CSP with the inline blocks' hashes, ETag, gzip): only the API is a stand-in.
    if (path === '/app/') return serveAsset(req, res, assets, 'index.html', false);
    if (path.startsWith('/app/assets/')) return serveAsset(req, res, assets, path.slice('/app/assets/'.length), true);
    if (!path.startsWith('/app/api/')) return void res.writeHead(404).end();
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body: unknown = raw ? JSON.parse(raw) : undefined;
      const api = path.slice('/app/api/'.length);
      calls.push({ method: req.method ?? 'GET', path: api, body });
      if (req.headers.authorization !== `tma ${initData}`) return json(401, { error: { code: 'unauthorized', message: '' } });
      const me = { userId: 1, lang: new URLSearchParams(initData).get('user')?.includes('"ru"') ? 'ru' : 'en', currency: 'EUR', services: filters.services.map((x) => x.service), keyStored: true, timeZone: 'UTC' };
      if (api === 'me') return json(200, me);
      if (api === 'boot') {
        const screen = new URL(req.url ?? '/', 'http://x').searchParams.get('screen');
        return json(200, screen === 'filters' ? { me, filters } : screen === 'books' ? { me, books: { books } } : { me, ledger });
      }
      if (api === 'ledger') return json(200, ledger);
      if (api === 'ledger.csv') return void res.writeHead(200, { 'content-type': 'text/csv' }).end('date,pnl\n');
      if (api === 'ledger.csv/send') return json(200, { files: 1, legs: ledger.open.reduce((n, p) => n + p.legs.length, 0) });
      const pos = /^positions\/(\w+)\/(settle|undo|edit)$/.exec(api);
      if (pos) {
        const p = ledger.open.find((x) => x.id === pos[1]) ?? (pos[2] === 'undo' ? settled.get(pos[1]!) : undefined);
        if (!p) return json(404, { error: { code: 'not_found', message: 'This position is no longer open.' } });
        if (pos[2] === 'settle') {
          ledger.open = ledger.open.filter((x) => x !== p);
          settled.set(p.id, p);
          return json(200, { position: { ...p, settled: true, undo: { n: 1, until: Date.now() + 60_000 } } });
        }
        if (pos[2] === 'undo' && settled.delete(p.id)) ledger.open = [...ledger.open, p];
        return json(200, { position: p });
      }
      if (api === 'filters') return json(200, filters);
      if (api === 'filters/coverage') return json(200, coverageOf(Math.max(0.2, 1 - ((body as { filter: Filter }).filter.sports.length - 4) * 0.1)));
      if (/^filters\/\w+$/.test(api) && req.method === 'PUT') {
        const { filter } = body as { filter: Filter };
        const fits = filter.sports.length <= 8;
        return json(200, { saved: fits ? 'saved' : 'draft', filter, coverage: coverageOf(fits ? 1 : 0.4) });
      }
      if (api === 'books') return json(200, { books });
      const book = books.find((b) => api === `books/${b.id}`);
      if (book && req.method === 'PUT') {
        const { settings } = body as { settings: BookRow['settings'] };
        return json(200, { book: { ...book, settings, status: settings.status ?? 'ok' } });
      }
      json(404, { error: { code: 'not_found', message: '' } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/app/`,
    calls,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
