/**
 * DEVELOPMENT ONLY: a tiny stand-in for the Mini App's API (the brief's contract, fixed sample
 * data) so the page, its bench and its screenshots could be built before the real routes landed.
 * The browser tests of record run against the real bot's server; this must not replace them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AssetProvider } from '../../src/miniapp/asset-provider.js';
import type { BookRow, FiltersView, LedgerView, OpenPosition, ServiceFilter } from '../../src/miniapp/web/types.js';

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors https://web.telegram.org https://*.telegram.org";

export interface DevStub {
  url: string;
  /** Every API request the page made: method, path, body. */
  calls: { method: string; path: string; body: unknown }[];
  close(): Promise<void>;
}

function sampleLedger(): LedgerView {
  const series = [];
  let cumulative = 0;
  const start = Date.UTC(2026, 9, 1);
  for (let i = 0; i < 58; i++) {
    const pnl = Math.round((Math.sin(i * 1.7) * 40 + 14 + (i % 7) * 3) * 100) / 100;
    cumulative = Math.round((cumulative + pnl) * 100) / 100;
    series.push({ date: new Date(start + i * 86_400_000).toISOString().slice(0, 10), pnl, cumulative, turnover: 600 + ((i * 137) % 900) });
  }
  return {
    summary: { staked: 48_210, turnover: 48_210, pnl: cumulative, yield: cumulative / 48_210, roi: cumulative / 9_800, clv: 0.0142, expected: 1_042.5, realised: cumulative, settled: 412, open: 3 },
    series,
    choices: { services: ['arbs_prematch', 'arbs_live', 'valuebets_prematch'], bookmakers: ['Pinnacle', 'Bet365', 'Betfair', '1xBet'], sports: ['Football', 'Tennis', 'Basketball'] },
    open: [
      { id: 'p41', number: 41, event: 'Arsenal – Chelsea', service: 'arbs_prematch', results: ['win', 'loss', 'void'], legs: [{ bookmaker: 'Pinnacle', odds: 2.08, stake: 240, status: 'placed' }, { bookmaker: 'Bet365', odds: 2.02, stake: 247, status: 'placed' }] },
      { id: 'p42', number: 42, event: 'Sinner – Alcaraz', service: 'valuebets_prematch', results: ['win', 'loss', 'void'], legs: [{ bookmaker: 'Betfair', odds: 2.64, stake: 50, status: 'placed' }] },
      { id: 'p43', number: 43, event: 'Lakers – Celtics, total 221.5', service: 'arbs_live', results: ['win', 'loss', 'void', 'half_win', 'half_loss'], legs: [{ bookmaker: '1xBet', odds: 1.95, stake: 150, status: 'placed' }, { bookmaker: 'Pinnacle', odds: 2.11, stake: 139, status: 'placed' }] },
    ],
  };
}

function sampleFilters(): FiltersView {
  const f = (sports: string[], bookmakers: string[], minProfit: number): ServiceFilter => ({ sports, bookmakers, minProfit, maxProfit: 15, minOdds: 1.3, maxOdds: 6, maxHoursAhead: 48 });
  return {
    filters: { arbs_prematch: f(['Football', 'Tennis'], ['Pinnacle', 'Bet365', 'Betfair'], 1.5), valuebets_prematch: f(['Football'], ['Pinnacle'], 3), arbs_live: null },
    dictionaries: {
      sports: ['Football', 'Tennis', 'Basketball', 'Ice hockey', 'Volleyball', 'Handball', 'Baseball', 'Esports', 'Table tennis', 'MMA', 'Boxing', 'Rugby'],
      bookmakers: ['Pinnacle', 'Bet365', 'Betfair', 'Smarkets', 'Matchbook', '1xBet', 'William Hill', 'Unibet', 'Bwin', 'Marathonbet', 'Betway', 'Sbobet'],
    },
    coverage: { arbs_prematch: { share: 1 }, valuebets_prematch: { share: 0.82 }, arbs_live: { share: 1 } },
  };
}

function sampleBooks(): BookRow[] {
  return [
    { bookmaker: 'Betfair', commission: 0.05, exchangeDefault: true, max: 500, min: 2, step: 1, status: 'active' },
    { bookmaker: 'Smarkets', commission: 0.02, exchangeDefault: true, max: null, min: null, step: null, status: 'active' },
    { bookmaker: 'Pinnacle', commission: null, exchangeDefault: false, max: 1000, min: 5, step: 1, status: 'active' },
    { bookmaker: 'Bet365', commission: null, exchangeDefault: false, max: 250, min: 1, step: 0.5, status: 'paused' },
    { bookmaker: '1xBet', commission: null, exchangeDefault: false, max: 300, min: 1, step: 1, status: 'off' },
  ];
}

export async function startDevStub(assets: AssetProvider, initData: string): Promise<DevStub> {
  const ledger = sampleLedger();
  const filters = sampleFilters();
  const books = sampleBooks();
  const calls: DevStub['calls'] = [];
  const settled = new Map<string, OpenPosition>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json', 'content-security-policy': CSP }).end(JSON.stringify(body));
    if (!path.startsWith('/app/api/')) {
      const asset = assets.get(path === '/app/' ? 'index.html' : path.replace('/app/assets/', ''));
      if (!asset) return void res.writeHead(404).end();
      const gz = asset.gzip && /gzip/.test(String(req.headers['accept-encoding']));
      res.writeHead(200, { 'content-type': asset.type, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', ...(gz ? { 'content-encoding': 'gzip' } : {}) });
      return void res.end(gz ? asset.gzip : asset.body);
    }
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body: unknown = raw ? JSON.parse(raw) : undefined;
      const api = path.slice('/app/api/'.length);
      calls.push({ method: req.method ?? 'GET', path: api, body });
      if (req.headers.authorization !== `tma ${initData}`) return json(401, { error: { code: 'unauthorized', message: '' } });
      if (api === 'me') return json(200, { userId: 1, language: new URLSearchParams(initData).get('user')?.includes('"ru"') ? 'ru' : 'en', currency: 'EUR', services: Object.keys(filters.filters), hasKey: true });
      if (api === 'ledger') return json(200, ledger);
      if (api === 'ledger.csv') return void res.writeHead(200, { 'content-type': 'text/csv' }).end('date,pnl\n');
      const pos = /^positions\/(\w+)\/(settle|undo|edit)$/.exec(api);
      if (pos) {
        const p = ledger.open.find((x) => x.id === pos[1]) ?? (pos[2] === 'undo' ? settled.get(pos[1]!) : undefined);
        if (!p) return json(404, { error: { code: 'not_found', message: 'This position is no longer open.' } });
        if (pos[2] === 'settle') {
          ledger.open = ledger.open.filter((x) => x !== p);
          settled.set(p.id, p);
          return json(200, { position: p, undo: { until: new Date(Date.now() + 60_000).toISOString() } });
        }
        if (pos[2] === 'undo' && settled.delete(p.id)) ledger.open = [...ledger.open, p];
        return json(200, p satisfies OpenPosition);
      }
      if (api === 'filters') return json(200, filters);
      if (api === 'filters/coverage') return json(200, { share: Math.max(0.2, 1 - ((body as { filter: ServiceFilter }).filter.sports.length - 4) * 0.1) });
      const fm = /^filters\/(\w+)$/.exec(api);
      if (fm && req.method === 'PUT') {
        const f = body as ServiceFilter;
        filters.filters[fm[1]!] = f;
        return json(200, f.sports.length > 8 ? { state: 'draft', coverage: { share: 0.4 } } : { state: 'saved', coverage: { share: 1 } });
      }
      if (api === 'books') return json(200, { books });
      if (api.startsWith('books/') && req.method === 'PUT') return json(200, body);
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
