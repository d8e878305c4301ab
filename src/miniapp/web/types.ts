/**
 * The API's shapes as the page reads them. Provisional copy of the contract in the miniapp brief:
 * once src/miniapp/contract.ts lands, this file becomes `export type { ... } from '../contract.js'`
 * (types only, so the bundle carries no zod).
 */
export type Lang = 'en' | 'ru';

export interface Me {
  userId: number;
  language: Lang;
  currency: string;
  services: string[];
  hasKey: boolean;
}

export interface LegView {
  bookmaker: string;
  odds: number;
  stake: number;
  status: string;
}

export interface OpenPosition {
  id: string;
  number: number;
  event: string;
  service: string;
  legs: LegView[];
  results: string[];
}

export interface LedgerDay {
  date: string;
  pnl: number;
  cumulative: number;
  turnover: number;
}

export interface LedgerView {
  summary: {
    staked: number;
    turnover: number;
    pnl: number;
    yield: number | null;
    roi: number | null;
    clv: number | null;
    expected: number | null;
    realised: number | null;
    settled: number;
    open: number;
  };
  series: LedgerDay[];
  choices: { services: string[]; bookmakers: string[]; sports: string[] };
  open: OpenPosition[];
}

export interface LedgerQuery {
  from?: string;
  to?: string;
  service?: string;
  bookmaker?: string;
  sport?: string;
}

export interface SettleAnswer {
  position: OpenPosition;
  undo: { until: string } | null;
}

export interface ServiceFilter {
  sports: string[];
  bookmakers: string[];
  minProfit: number | null;
  maxProfit: number | null;
  minOdds: number | null;
  maxOdds: number | null;
  maxHoursAhead: number | null;
}

export interface Coverage {
  /** Share of the wanted refreshes the token budget can pay for, 0..1. */
  share: number;
  note?: string;
}

export interface FiltersView {
  filters: Record<string, ServiceFilter | null>;
  dictionaries: { sports: string[]; bookmakers: string[] };
  coverage: Record<string, Coverage>;
}

export interface SaveFilterAnswer {
  state: 'saved' | 'draft';
  coverage: Coverage;
  message?: string;
}

export interface BookRow {
  bookmaker: string;
  commission: number | null;
  exchangeDefault: boolean;
  max: number | null;
  min: number | null;
  step: number | null;
  status: 'active' | 'paused' | 'off';
}

export interface BooksView {
  books: BookRow[];
}

export interface ApiError {
  error: { code: string; message: string };
}
