/**
 * The ledger forgives mistakes: /positions [period] (every position, newest first, paged), and the
 * `le:` buttons — ✏️ Edit (a leg's odds, stake and bookmaker; each leg's result, half results and
 * dead heats included), ↩️ Reopen, 🗑 Delete (asked first), ↩️ Undo of the last change. Every
 * change is one put of the position, so /open, /pnl, the chart and the CSV follow at once. A button
 * only ever reaches the presser's own ledger (positions are looked up in it by id), and an undo
 * names the change it undoes (`src/ledger/edits.ts`).
 */
import { Composer } from 'grammy';
import { fmtMoney, fmtOdds, withUnit } from '../../alerts/printed.js';
import { parseTaken } from '../../ledger/actions.js';
import { applyResults, editLegValues, reopen, undoChange, withUndo, UNDO_WINDOW_MS, type LegOutcome } from '../../ledger/edits.js';
import { legResultChoices } from '../../ledger/markets.js';
import { isSettled, type Position } from '../../ledger/model.js';
import { parsePeriod, periodRange, periodText } from '../../ledger/periods.js';
import { positionPnl } from '../../ledger/settle.js';
import type { Translate } from '../../locales/i18n.js';
import { decodeLedgerEdit, encodeLedgerEdit, legOutcome, kindPattern } from '../callback-data/index.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import type { PendingInput } from '../pending.js';
import { editCard, positionsPage, resultEditor } from '../ui/ledger-edit-text.js';
import { periodWords, positionLines } from '../ui/ledger-text.js';
import { giveBack } from './position-ids.js';
import { chooseSide, matchBook } from './ledger-add.js';

type Buttons = { text: string; callback_data: string }[][];
/** A position's amounts in the currency it was recorded in. */
const signed = (x: number, p: Position) => withUnit(fmtMoney(x, { signed: true }), p.currency);
const stakeOf = (x: number, p: Position) => withUnit(fmtMoney(x, { whole: true }), p.currency);

/** The ↩️ Undo button of the position's last change. */
export function undoRow(p: Position, t: Translate): Buttons {
  return p.undo && p.undo.legs.length > 0 ? [[{ text: t('btn_ledger_undo'), callback_data: encodeLedgerEdit({ type: 'undo', positionId: p.id, n: p.undo.n }) }]] : [];
}

/** What a change did, in words, with its ↩️ Undo (valid UNDO_WINDOW_MS). */
export async function replyChanged(ctx: BotContext, p: Position, what: string): Promise<void> {
  const pnl = positionPnl(p);
  const state = isSettled(p) && pnl !== undefined ? ctx.t('ledger_now_settled', { pnl: signed(pnl, p) }) : ctx.t('ledger_now_open');
  await ctx.reply(`${what}\n${state}\n${ctx.t('ledger_undo_hint', { min: UNDO_WINDOW_MS / 60_000 })}`, { reply_markup: { inline_keyboard: undoRow(p, ctx.t) } });
}

const UNDO_REFUSED = { none: 'ledger_undo_none', 'later-change': 'ledger_undo_later', done: 'ledger_undo_done', expired: 'ledger_undo_expired' } as const;

async function showPositions(rt: BotRuntime, ctx: BotContext, periodRaw: string, page: number, edit: boolean): Promise<void> {
  const period = parsePeriod(periodRaw);
  if (!period) return void (await ctx.reply(ctx.t('positions_usage', { value: periodRaw.slice(0, 40) })));
  const { from, to } = periodRange(period, rt.clock.now());
  const book = await rt.store.ledger.book(ctx.from!.id);
  // Settled positions by settlement date, the others by when they were placed (as /export counts them).
  const at = (p: Position) => (isSettled(p) ? (p.settledAt ?? p.placedAt) : p.placedAt);
  const shown = book.positions.filter((p) => at(p) >= from && at(p) < to).sort((a, b) => at(b) - at(a) || parseInt(b.id, 36) - parseInt(a.id, 36));
  const { text, buttons } = positionsPage(shown, page, { text: periodText(period), words: periodWords(period, ctx.t) }, ctx.lang, ctx.user?.timeZone ?? 'UTC', ctx.t);
  const extra = { reply_markup: { inline_keyboard: buttons }, link_preview_options: { is_disabled: true } };
  if (!edit) return void (await ctx.reply(text, extra));
  try {
    await ctx.editMessageText(text, extra);
  } catch (err) {
    ctx.log.debug({ err }, '/positions page not edited');
  }
}

async function editInPlace(ctx: BotContext, view: { text: string; buttons: Buttons }): Promise<void> {
  try {
    await ctx.editMessageText(view.text, { reply_markup: { inline_keyboard: view.buttons }, link_preview_options: { is_disabled: true } });
  } catch (err) {
    ctx.log.debug({ err }, 'a ledger card was not edited');
  }
}

/** A typed answer to ✏️ on a leg: "odds stake [bookmaker]". */
export async function acceptLegFix(rt: BotRuntime, ctx: BotContext, text: string, pending: Extract<PendingInput, { kind: 'ledger-fix' }>): Promise<void> {
  const userId = ctx.from!.id;
  const taken = parseTaken(text);
  if (!taken) return void (await ctx.reply(ctx.t('ledger_fix_bad', { value: text.slice(0, 60) })));
  const p = await rt.store.ledger.position(userId, pending.positionId);
  let book: { bookmaker?: string; commission?: number } = {};
  if (taken.bookmaker !== undefined) {
    const found = await matchBook(rt, ctx, taken.bookmaker);
    if (!found.ok) return void (await ctx.reply(ctx.t(found.key, { value: taken.bookmaker, names: found.names ?? '' })));
    book = { bookmaker: found.name, commission: found.commission };
  }
  const next = p && editLegValues(p, pending.leg, { odds: taken.odds, stake: taken.stake, ...book });
  await rt.pending.clear(ctx.chat!.id, userId);
  if (!p || !next) return void (await ctx.reply(ctx.t('ledger_leg_not_editable')));
  const stored = await rt.store.ledger.put(userId, withUndo(p, next, rt.clock.now()));
  const leg = stored.legs[pending.leg]!;
  await replyChanged(ctx, stored, ctx.t('ledger_fix_saved', { id: p.id, n: pending.leg + 1, odds: fmtOdds(leg.odds), stake: stakeOf(leg.stake, p), book: leg.bookmaker }));
}

export function ledgerEditFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('positions', (ctx) => showPositions(rt, ctx, ctx.match, 0, false));

  composer.callbackQuery(kindPattern('ledgerEdit'), async (ctx) => {
    const action = decodeLedgerEdit(ctx.callbackQuery.data);
    if (!action) return void (await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') }));
    if (action.type === 'page') {
      await ctx.answerCallbackQuery();
      return showPositions(rt, ctx, action.period, action.page, true);
    }
    if (action.type === 'side') {
      await ctx.answerCallbackQuery();
      return chooseSide(rt, ctx, action.lay);
    }
    const userId = ctx.from.id;
    const p = await rt.store.ledger.position(userId, action.positionId);
    if (!p) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_not_found'), show_alert: true }));
    const tz = ctx.user?.timeZone ?? 'UTC';
    const now = rt.clock.now();
    switch (action.type) {
      case 'edit':
      case 'back': {
        await ctx.answerCallbackQuery();
        const card = editCard(p, ctx.lang, tz, ctx.t);
        if (action.type === 'back') return editInPlace(ctx, card);
        return void (await ctx.reply(card.text, { reply_markup: { inline_keyboard: card.buttons } }));
      }
      case 'legValues': {
        const leg = p.legs[action.leg];
        if (!leg || leg.status === 'refused') return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_leg_not_editable'), show_alert: true }));
        await ctx.answerCallbackQuery();
        await rt.pending.set(ctx.chat?.id ?? userId, userId, { kind: 'ledger-fix', positionId: p.id, leg: action.leg });
        const vars = { id: p.id, n: action.leg + 1, odds: fmtOdds(leg.odds), stake: stakeOf(leg.stake, p), book: leg.bookmaker, market: leg.market };
        return void (await ctx.reply(ctx.t('ledger_fix_prompt', vars)));
      }
      case 'results': {
        await ctx.answerCallbackQuery();
        const view = resultEditor(p, ctx.t);
        return editInPlace(ctx, { text: view.text, buttons: [...undoRow(p, ctx.t), ...view.buttons] });
      }
      case 'legResult': {
        const outcome = legOutcome(action.code);
        const leg = p.legs[action.leg];
        const allowed = leg && outcome && legResultChoices(leg).includes(outcome.result);
        const next = allowed ? applyResults(p, new Map<number, LegOutcome>([[action.leg, outcome]]), now) : undefined;
        if (!next) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_leg_not_editable'), show_alert: true }));
        const stored = await rt.store.ledger.put(userId, withUndo(p, next, now));
        const pnl = positionPnl(stored);
        await ctx.answerCallbackQuery({ text: isSettled(stored) && pnl !== undefined ? ctx.tp('ledger_settled', { id: p.id, pnl: signed(pnl, stored) }) : ctx.tp('ledger_result_saved') });
        const view = resultEditor(stored, ctx.t);
        return editInPlace(ctx, { text: view.text, buttons: [...undoRow(stored, ctx.t), ...view.buttons] });
      }
      case 'reopen': {
        const next = reopen(p);
        if (!next) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_not_settled', { id: p.id }), show_alert: true }));
        const stored = await rt.store.ledger.put(userId, withUndo(p, next, now));
        await ctx.answerCallbackQuery();
        return replyChanged(ctx, stored, ctx.t('ledger_reopened', { id: p.id }));
      }
      case 'delete': {
        await ctx.answerCallbackQuery();
        const lines = positionLines(p, ctx.lang, tz, ctx.t).join('\n');
        const buttons = [[
          { text: ctx.t('btn_ledger_delete_yes', { id: p.id }), callback_data: encodeLedgerEdit({ type: 'deleteYes', positionId: p.id }) },
          { text: ctx.t('btn_ledger_delete_no'), callback_data: encodeLedgerEdit({ type: 'deleteNo', positionId: p.id }) },
        ]];
        return void (await ctx.reply(`${ctx.t('ledger_delete_ask', { id: p.id })}\n\n${lines}`, { reply_markup: { inline_keyboard: buttons } }));
      }
      case 'deleteNo': {
        await ctx.answerCallbackQuery();
        return editInPlace(ctx, { text: ctx.t('ledger_delete_kept', { id: p.id }), buttons: [] });
      }
      case 'deleteYes': {
        const removed = await rt.store.ledger.remove(userId, p.id);
        // The newest position's number goes back: the next one takes it, and /open shows no gap.
        if (removed) await giveBack(rt, userId, p.id);
        await ctx.answerCallbackQuery({ text: removed ? ctx.tp('ledger_deleted', { id: p.id }) : ctx.tp('ledger_not_found') });
        return editInPlace(ctx, { text: ctx.t('ledger_deleted', { id: p.id }), buttons: [] });
      }
      case 'undo': {
        const r = undoChange(p, action.n, now);
        if (!r.ok) return void (await ctx.answerCallbackQuery({ text: ctx.tp(UNDO_REFUSED[r.reason], { id: p.id, min: UNDO_WINDOW_MS / 60_000 }), show_alert: true }));
        const stored = await rt.store.ledger.put(userId, r.position);
        await ctx.answerCallbackQuery({ text: ctx.tp('ledger_undone', { id: p.id }) });
        const pnl = positionPnl(stored);
        const state = isSettled(stored) && pnl !== undefined ? ctx.t('ledger_now_settled', { pnl: signed(pnl, stored) }) : ctx.t('ledger_now_open');
        return editInPlace(ctx, { text: `${ctx.t('ledger_undone', { id: p.id })}\n${state}`, buttons: [] });
      }
    }
  });

  return composer;
}
