/**
 * The ledger in the chat: a position as lines, /open's page with its settle buttons, /pnl's
 * figures. HTML; every name from the service or the user is escaped here.
 */
import { KIND_ICON } from '../../alerts/alert-lines.js';
import { fmtMoney, fmtOdds, fmtPct } from '../../alerts/printed.js';
import { formatStart } from '../../alerts/time.js';
import { clipText, escapeHtml } from '../../lib/html.js';
import type { Lang, Translate } from '../../locales/i18n.js';
import { MANUAL_SERVICE } from '../../ledger/manual.js';
import { closeKey, type Close, type DevigMethod, type Position } from '../../ledger/model.js';
import type { Period } from '../../ledger/periods.js';
import { hedgeFor, worstCase } from '../../ledger/settle.js';
import type { LedgerSummary, Totals } from '../../ledger/summary.js';
import { encodeLedgerAction, type SettleCode } from '../callback-data/ledger.js';
import { ledgerHedgeBreakEven } from './hedge-text.js';
import { comboButtons, editRow } from './ledger-buttons.js';

export type Buttons = { text: string; callback_data: string }[][];

/** Positions per /open page (each with its row of buttons). */
export const OPEN_PAGE_SIZE = 5;
/** Rows per breakdown in /pnl. */
const BREAKDOWN_ROWS = 8;

/** A market that names the lay itself ("Lay TO(2.5)", "Против П1"). */
const LAY_MARKET = /^(?:lay|против)\s/i;

const money = (x: number, currency = ''): string => `${fmtMoney(x, { signed: true })}${currency ? ` ${escapeHtml(currency)}` : ''}`;
const plain = (x: number): string => fmtMoney(x, { whole: true });

/** A time in the ledger's words, as the alerts write it ("Sun 29 Nov 12:00", 24-hour, the user's zone), so a position reads like the alert it came from. */
export function when(ms: number, lang: Lang, timeZone: string): string {
  return formatStart(ms, timeZone, lang);
}

/** "#3 ⚖️ Home – Away · Sun 2 Nov 18:00", one line per leg, and a valuebet's closing line as last seen. */
export function positionLines(p: Position, lang: Lang, timeZone: string, t: Translate, close?: Close, userCurrency = ''): string[] {
  // The currency the position was recorded in, else the user's setting, beside every amount.
  const currency = p.currency || userCurrency;
  const unit = currency ? ` ${escapeHtml(currency)}` : '';
  const head = `<b>#${p.id}</b> ${KIND_ICON[p.kind]} ${escapeHtml(clipText(p.event || (p.service === MANUAL_SERVICE ? t('ledger_manual_service') : p.itemId), 60))}${p.eventStart !== null ? ` · ${when(p.eventStart, lang, timeZone)}` : ''}`;
  const legs = p.legs.map((l, i) => {
    const icon = l.status === 'refused' ? '❌ ' : l.status === 'open' ? '⏳ ' : '';
    // A lay's market usually says "Lay" already (#24); its money at risk is the liability, not the stake.
    const lay = l.lay && !LAY_MARKET.test(l.market) ? `${t('ledger_lay_word')} ` : '';
    const liability = l.lay ? ` · ${t('ledger_lay_liability', { amount: `${fmtMoney(l.liability)}${unit}` })}` : '';
    return `${icon}${i + 1}) ${escapeHtml(clipText(l.bookmaker, 24))} · ${lay}${escapeHtml(clipText(l.market, 24))} · ${fmtOdds(l.odds)} × ${plain(l.stake)}${unit}${liability}`;
  });
  const lines = [head, ...legs];
  const worst = worstCase(p);
  if (worst !== undefined && Number.isFinite(worst) && p.legs.some((l) => l.status === 'placed')) lines.push(`↳ ${money(worst, currency)}`);
  if (close && p.kind === 'valuebets') {
    const before = p.eventStart === null ? null : Math.round((p.eventStart - close.at) / 60_000);
    lines.push(before !== null && before > 0 ? t('ledger_close_seen_before', { odds: fmtOdds(close.odds), min: before }) : t('ledger_close_seen', { odds: fmtOdds(close.odds) }));
  }
  const open = p.legs.findIndex((l) => l.status === 'open');
  if (open >= 0) {
    const leg = p.legs[open]!;
    const h = hedgeFor({ ...p, legs: p.legs.filter((l) => l.status !== 'open') }, leg.outcome, leg.effectiveOdds);
    const be = h ? ledgerHedgeBreakEven(h, leg) : undefined;
    if (h) lines.push(t('ledger_open_hedge', { n: leg.outcome + 1, be: be !== undefined && Number.isFinite(be) ? fmtOdds(be) : '∞' }));
  }
  return lines;
}

/** The settle buttons of one position (one row, two for a long arb). */
export function settleButtons(p: Position, t: Translate): Buttons {
  // Totals and handicaps: each result the lines allow (half results on quarter lines).
  const combos = comboButtons(p, t);
  if (combos) return combos;
  const b = (text: string, result: SettleCode) => ({ text: `#${p.id} ${text}`, callback_data: encodeLedgerAction({ type: 'settle', positionId: p.id, result }) });
  switch (p.kind) {
    case 'valuebets':
      return [
        [b(t('btn_settle_won'), 'w'), b(t('btn_settle_half_won'), 'hw'), b(t('btn_settle_void'), 'v')],
        [b(t('btn_settle_half_lost'), 'hl'), b(t('btn_settle_lost'), 'l')],
      ];
    case 'middles':
      return [[b(t('btn_settle_hit'), 'h'), b(t('btn_settle_leg', { n: 1 }), 'o0'), b(t('btn_settle_leg', { n: 2 }), 'o1'), b(t('btn_settle_void'), 'v')]];
    case 'arbs': {
      const outcomes = [...new Set(p.legs.map((l) => l.outcome))].sort((a, c) => a - c);
      const buttons = [...outcomes.map((o) => b(t('btn_settle_leg', { n: o + 1 }), `o${o}`)), b(t('btn_settle_void'), 'v')];
      const rows: Buttons = [];
      for (let i = 0; i < buttons.length; i += 4) rows.push(buttons.slice(i, i + 4));
      return rows;
    }
  }
}

/** /open's page `page` (0-based, clamped): text and buttons. */
export function openPage(
  positions: readonly Position[],
  page: number,
  lang: Lang,
  timeZone: string,
  t: Translate,
  closes: ReadonlyMap<string, Close> = new Map(),
  currency = '',
): { text: string; buttons: Buttons } {
  if (positions.length === 0) return { text: t('ledger_open_empty'), buttons: [] };
  const pages = Math.ceil(positions.length / OPEN_PAGE_SIZE);
  const at = Math.min(Math.max(page, 0), pages - 1);
  const shown = positions.slice(at * OPEN_PAGE_SIZE, (at + 1) * OPEN_PAGE_SIZE);
  const blocks = shown.map((p) => positionLines(p, lang, timeZone, t, closes.get(closeKey(p.id, 0)), currency).join('\n'));
  const head = t('ledger_open_title', { n: positions.length });
  const foot = pages > 1 ? `\n\n${t('ledger_open_page', { page: at + 1, pages })}` : '';
  const buttons: Buttons = shown.flatMap((p) => [...settleButtons(p, t), editRow(p, t)]);
  const nav = [
    ...(at > 0 ? [{ text: t('btn_page_prev'), callback_data: encodeLedgerAction({ type: 'page', page: at - 1 }) }] : []),
    ...(at < pages - 1 ? [{ text: t('btn_page_next'), callback_data: encodeLedgerAction({ type: 'page', page: at + 1 }) }] : []),
  ];
  if (nav.length > 0) buttons.push(nav);
  return { text: `${head}\n\n${blocks.join('\n\n')}${foot}`, buttons };
}

export function periodWords(period: Period, t: Translate): string {
  switch (period.kind) {
    case 'all':
      return t('pnl_period_all');
    case 'days':
      return t('pnl_period_days', { n: period.days });
    case 'this-month':
      return t('pnl_period_month');
    case 'month':
      return `${period.year}-${String(period.month).padStart(2, '0')}`;
  }
}

const pct = (x: number | null): string => (x === null ? '—' : fmtPct(x));

function breakdown(title: string, rows: [string, Totals][], line: (name: string, v: Totals) => string, t: Translate): string[] {
  if (rows.length === 0) return [];
  const shown = rows.slice(0, BREAKDOWN_ROWS).map(([k, v]) => line(escapeHtml(clipText(k, 32)), v));
  if (rows.length > BREAKDOWN_ROWS) shown.push(t('pnl_more', { n: rows.length - BREAKDOWN_ROWS }));
  return ['', title, ...shown];
}

/** /pnl's text: every figure labelled (yield on turnover, ROI on the starting bank). */
export function pnlText(s: LedgerSummary, period: Period, method: DevigMethod, currency: string, t: Translate, serviceName: (s: string) => string): string {
  const lines = [t('pnl_title', { period: periodWords(period, t) })];
  lines.push(t('pnl_main', { pnl: money(s.totals.pnl, currency), turnover: `${plain(s.totals.turnover)}${currency ? ` ${currency}` : ''}` }));
  lines.push(t('pnl_yield', { pct: pct(s.totals.yieldPct) }));
  if (s.startBank !== null) lines.push(t('pnl_roi', { bank: plain(s.startBank), pct: pct(s.roiOnBankPct) }));
  lines.push(t('pnl_counts', { n: s.totals.count, open: s.open, rate: s.winRatePct === null ? '—' : `${Math.round(s.winRatePct)}%` }));
  if (s.arbs.count > 0) lines.push(t('pnl_arbs', { expected: money(s.arbs.expected), realised: money(s.arbs.realised), n: s.arbs.count }));
  if (s.clv) {
    lines.push(
      t('pnl_clv', { method: t(`devig_${method}`), mean: fmtPct(s.clv.meanPct), weighted: fmtPct(s.clv.weightedPct), share: `${Math.round(s.clv.beatSharePct)}%`, n: s.clv.count }),
    );
  }
  if (s.legsClv) {
    const c = s.legsClv;
    lines.push(t('pnl_clv_legs', { mean: fmtPct(c.meanPct), weighted: fmtPct(c.weightedPct), share: `${Math.round(c.beatSharePct)}%`, n: c.count }));
  }
  const yieldLine = (name: string, v: Totals) => `${name}: ${money(v.pnl)} · ${plain(v.turnover)} · ${pct(v.yieldPct)}`;
  lines.push(...breakdown(t('pnl_by_service'), s.byService.map(([k, v]) => [serviceName(k), v] as [string, Totals]), yieldLine, t));
  lines.push(...breakdown(t('pnl_by_book'), s.byBookmaker, (name, v) => `${name}: ${plain(v.turnover)} · ${money(v.pnl)} · ${v.count}`, t));
  lines.push(...breakdown(t('pnl_by_sport'), s.bySport, yieldLine, t));
  return lines.join('\n');
}
