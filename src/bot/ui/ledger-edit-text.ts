/**
 * The ledger's corrections in the chat: the ✏️ card of one position with its choices, the per-leg
 * result editor (the results each leg's market allows, a dead heat as a share), and /positions'
 * pages. HTML; names escaped where the lines are made (`ledger-text.ts`).
 */
import { fmtMoney, withUnit } from '../../alerts/printed.js';
import type { Lang, Translate } from '../../locales/i18n.js';
import { legResultChoices } from '../../ledger/markets.js';
import { isSettled, type Position } from '../../ledger/model.js';
import { positionPnl } from '../../ledger/settle.js';
import { DEAD_HEAT_CODES, encodeLedgerEdit, legCode } from '../callback-data/ledger-edit.js';
import { editRow, RESULT_WORD, resultWord } from './ledger-buttons.js';
import { positionLines, when, type Buttons } from './ledger-text.js';

/** Positions per /positions page. */
export const POSITIONS_PAGE_SIZE = 5;
/** Dead-heat shares offered as buttons, by code: 1/2, 1/3, 1/4, then 2/3, 3/4, 1/5 (more places than one). */
const DEAD_HEAT_ROWS = [['2', '3', '4'], ['a', 'b', '5']] as const;

/** Settled (with its P&L) or open, in words. */
function statusLine(p: Position, lang: Lang, timeZone: string, t: Translate): string {
  const pnl = positionPnl(p);
  if (isSettled(p) && pnl !== undefined) return t('ledger_status_settled', { when: when(p.settledAt ?? p.placedAt, lang, timeZone), pnl: withUnit(fmtMoney(pnl, { signed: true }), p.currency) });
  return t('ledger_status_open');
}

/** The ✏️ card: the position, each leg's result, and what can be changed. */
export function editCard(p: Position, lang: Lang, timeZone: string, t: Translate): { text: string; buttons: Buttons } {
  const results = p.legs.filter((l) => l.status === 'placed').map((l) => `${p.legs.indexOf(l) + 1}) ${resultWord(l, t)}`);
  const text = [t('ledger_edit_title', { id: p.id }), '', ...positionLines(p, lang, timeZone, t), statusLine(p, lang, timeZone, t), t('ledger_edit_results', { results: results.join(' · ') }), '', t('ledger_edit_hint')].join('\n');
  const legRows: Buttons = p.legs.flatMap((l, i) =>
    l.status === 'refused' ? [] : [[{ text: t('btn_ledger_edit_leg', { n: i + 1 }), callback_data: encodeLedgerEdit({ type: 'legValues', positionId: p.id, leg: i }) }]],
  );
  const last: Buttons[number] = [{ text: t('btn_ledger_results'), callback_data: encodeLedgerEdit({ type: 'results', positionId: p.id }) }];
  if (p.legs.some((l) => l.result !== null)) last.push({ text: t('btn_ledger_reopen'), callback_data: encodeLedgerEdit({ type: 'reopen', positionId: p.id }) });
  last.push({ text: t('btn_ledger_delete', { id: p.id }), callback_data: encodeLedgerEdit({ type: 'delete', positionId: p.id }) });
  return { text, buttons: [...legRows, last] };
}

/** The result editor: per placed leg, the results its market allows (a dead heat as ½ ⅓ ¼). */
export function resultEditor(p: Position, t: Translate): { text: string; buttons: Buttons } {
  const buttons: Buttons = [];
  const lines = [t('ledger_results_title', { id: p.id })];
  p.legs.forEach((l, i) => {
    if (l.status !== 'placed') return;
    lines.push(`${i + 1}) ${l.market || l.bookmaker}: <b>${resultWord(l, t)}</b>`);
    const mark = (code: string, text: string) => ({
      text: `${i + 1}) ${legCode(l.result === null ? null : { result: l.result, ...(l.deadHeat != null && { deadHeat: l.deadHeat }) }) === code ? '• ' : ''}${text}`,
      callback_data: encodeLedgerEdit({ type: 'legResult', positionId: p.id, leg: i, code }),
    });
    const choices = legResultChoices(l);
    const plain = choices.filter((r) => r !== 'dead_heat').map((r) => mark(legCode({ result: r }), t(RESULT_WORD[r])));
    for (let k = 0; k < plain.length; k += 3) buttons.push(plain.slice(k, k + 3));
    if (choices.includes('dead_heat')) for (const row of DEAD_HEAT_ROWS) buttons.push(row.map((code) => mark(code, t('ledger_result_dead_heat_share', { share: DEAD_HEAT_CODES[code]!.join('/') }))));
  });
  buttons.push([{ text: t('btn_ledger_back'), callback_data: encodeLedgerEdit({ type: 'back', positionId: p.id }) }]);
  return { text: lines.join('\n'), buttons };
}

/** /positions' page `page` (0-based, clamped): newest first, each with its status, ✏️ and 🗑. */
export function positionsPage(
  positions: readonly Position[],
  page: number,
  period: { text: string; words: string },
  lang: Lang,
  timeZone: string,
  t: Translate,
): { text: string; buttons: Buttons } {
  if (positions.length === 0) return { text: t('ledger_positions_empty', { period: period.words }), buttons: [] };
  const pages = Math.ceil(positions.length / POSITIONS_PAGE_SIZE);
  const at = Math.min(Math.max(page, 0), pages - 1);
  const shown = positions.slice(at * POSITIONS_PAGE_SIZE, (at + 1) * POSITIONS_PAGE_SIZE);
  const blocks = shown.map((p) => [...positionLines(p, lang, timeZone, t), statusLine(p, lang, timeZone, t)].join('\n'));
  const head = t('ledger_positions_title', { n: positions.length, period: period.words });
  const foot = pages > 1 ? `\n\n${t('ledger_open_page', { page: at + 1, pages })}` : '';
  const buttons: Buttons = shown.map((p) => editRow(p, t));
  const nav = [
    ...(at > 0 ? [{ text: t('btn_page_prev'), callback_data: encodeLedgerEdit({ type: 'page', page: at - 1, period: period.text }) }] : []),
    ...(at < pages - 1 ? [{ text: t('btn_page_next'), callback_data: encodeLedgerEdit({ type: 'page', page: at + 1, period: period.text }) }] : []),
  ];
  if (nav.length > 0) buttons.push(nav);
  return { text: `${head}\n\n${blocks.join('\n\n')}${foot}`, buttons };
}
