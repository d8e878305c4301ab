/**
 * The ledger's commands and buttons: /open (unsettled positions, oldest first, paged, settled with
 * one tap on each result the markets allow, the answer carrying ↩️ Undo; ✏️ and 🗑 are
 * `ledger-edit.ts`'s; /pnl, /export and /archive are `ledger-reports.ts`'s), /clv (the de-vig method of closing lines), and the `l:` buttons of placed positions (`placed.ts` asks the questions). A button
 * only ever reaches the presser's own ledger: a forged or stale position id finds nothing.
 */
import { Composer } from 'grammy';
import { fmtMoney, withUnit } from '../../alerts/printed.js';
import { giveUp, settle, type SettleResult } from '../../ledger/actions.js';
import { settleLegs, withUndo, type LegOutcome } from '../../ledger/edits.js';
import { DEVIG_METHODS, isEmpty, isSettled, type DevigMethod, type Position } from '../../ledger/model.js';
import { positionPnl } from '../../ledger/settle.js';
import { decodeLedgerAction, encodeLedgerAction, kindPattern, legOutcome, type SettleCode } from '../callback-data/index.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { openPage } from '../ui/ledger-text.js';
import { replyChanged } from './ledger-edit.js';
import { editLeg, keepLeg, refuseLeg } from './placed.js';

const SETTLE_RESULTS: Record<string, SettleResult> = { w: 'won', hw: 'half_won', v: 'void', hl: 'half_lost', l: 'lost', h: 'hit' };

/** Each leg's own result (`m` codes: one character per leg, in leg order); every placed leg must get one. */
function settleByCodes(p: Position, codes: string, now: number): Position | undefined {
  const outcomes = [...codes].map(legOutcome);
  return outcomes.includes(undefined) ? undefined : settleLegs(p, outcomes as (LegOutcome | null)[], now);
}

function settleResult(code: SettleCode): SettleResult {
  return code.startsWith('o') ? { outcome: Number(code.slice(1)) } : (SETTLE_RESULTS[code] ?? 'void');
}

/** Unsettled positions with something placed or a hedge open, oldest first. */
export const unsettled = (positions: readonly Position[]): Position[] =>
  positions.filter((p) => !isSettled(p) && !isEmpty(p)).sort((a, b) => a.placedAt - b.placedAt);

export function ledgerFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  const showOpen = async (ctx: BotContext, page: number, edit: boolean) => {
    const userId = ctx.from!.id;
    const book = await rt.store.ledger.book(userId);
    const { text, buttons } = openPage(unsettled(book.positions), page, ctx.lang, ctx.user?.timeZone ?? 'UTC', ctx.t, book.closes, book.settings.currency ?? '');
    const extra = { reply_markup: { inline_keyboard: buttons }, link_preview_options: { is_disabled: true } };
    if (edit) {
      try {
        await ctx.editMessageText(text, extra);
      } catch (err) {
        ctx.log.debug({ err }, '/open page not edited');
      }
    } else {
      await ctx.reply(text, extra);
    }
  };

  composer.command('open', (ctx) => showOpen(ctx, 0, false));

  const devigButtons = (current: DevigMethod, t: BotContext['t']) => [
    DEVIG_METHODS.map((method) => ({ text: `${method === current ? '• ' : ''}${t(`devig_${method}`)}`, callback_data: encodeLedgerAction({ type: 'devig', method }) })),
  ];

  composer.command('clv', async (ctx) => {
    const { devig } = await rt.store.ledger.settings(ctx.from!.id);
    await ctx.reply(ctx.t('clv_method', { method: ctx.t(`devig_${devig}`) }), { reply_markup: { inline_keyboard: devigButtons(devig, ctx.t) } });
  });

  composer.callbackQuery(kindPattern('ledger'), async (ctx) => {
    const action = decodeLedgerAction(ctx.callbackQuery.data);
    if (!action) return void (await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') }));
    if (action.type === 'page') {
      await ctx.answerCallbackQuery();
      return showOpen(ctx, action.page, true);
    }
    if (action.type === 'devig') {
      await rt.store.ledger.updateSettings(ctx.from.id, { devig: action.method });
      const name = ctx.t(`devig_${action.method}`);
      await ctx.answerCallbackQuery({ text: ctx.tp('clv_method_set', { method: name }) });
      try {
        await ctx.editMessageText(ctx.t('clv_method', { method: name }), { reply_markup: { inline_keyboard: devigButtons(action.method, ctx.t) } });
      } catch (err) {
        ctx.log.debug({ err }, '/clv not edited');
      }
      return;
    }
    const userId = ctx.from.id;
    const p = await rt.store.ledger.position(userId, action.positionId);
    if (!p) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_not_found'), show_alert: true }));
    switch (action.type) {
      case 'keep':
      case 'refuse':
      case 'edit': {
        const leg = p.legs[action.leg];
        if (!leg || isSettled(p) || (action.type !== 'edit' && leg.status !== 'placed') || (action.type === 'edit' && leg.status === 'refused')) {
          return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_leg_not_editable'), show_alert: true }));
        }
        if (action.type === 'keep') return keepLeg(rt, ctx, p, action.leg);
        if (action.type === 'refuse') return refuseLeg(rt, ctx, p, action.leg);
        return editLeg(rt, ctx, p, action.leg);
      }
      case 'giveUp': {
        const next = giveUp(p);
        if (!next) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_leg_not_editable'), show_alert: true }));
        await rt.store.ledger.put(userId, next);
        await rt.pending.clear(ctx.chat?.id ?? userId, userId);
        await ctx.answerCallbackQuery();
        await ctx.reply(ctx.t('ledger_gave_up', { id: p.id }));
        return;
      }
      case 'settle': {
        if (isSettled(p)) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_already_settled', { id: p.id }), show_alert: true }));
        const now = rt.clock.now();
        const next = action.result.startsWith('m') ? settleByCodes(p, action.result.slice(1), now) : settle(p, settleResult(action.result), now);
        if (!next) return void (await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') }));
        const stored = await rt.store.ledger.put(userId, withUndo(p, next, now));
        const pnl = withUnit(fmtMoney(positionPnl(stored) ?? 0, { signed: true }), stored.currency);
        const settled = ctx.t('ledger_settled', { id: p.id, pnl });
        await ctx.answerCallbackQuery({ text: ctx.tp('ledger_settled', { id: p.id, pnl }) });
        await showOpen(ctx, 0, true);
        // Every settle can be taken back (#13): its answer carries ↩️ Undo.
        return replyChanged(ctx, stored, settled);
      }
    }
  });

  return composer;
}
