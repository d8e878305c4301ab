/**
 * "✅ Placed" and "✏️ Placed differently" under an alert, and what follows them: the position is
 * recorded with the stakes and odds the alert shows now; the alert then says "✅ Placed …"; the
 * ✏️ flow asks leg by leg for the odds and stake actually taken (the shown ones one tap away); a
 * refused leg is marked ❌ and answered with the hedge's break-even odds and stake, the hedge
 * staying open until it is placed or given up. Questions go to the user's private chat.
 */
import { isLedgerFull } from '../ledger-bound.js';
import { answerLedgerFull } from './ledger-reports.js';
import type { Api } from 'grammy';
import { formatAlert } from '../../alerts/format.js';
import { fmtMoney, fmtOdds } from '../../alerts/printed.js';
import { escapeHtml } from '../../lib/html.js';
import { refuse, takeLeg, parseTaken } from '../../ledger/actions.js';
import { positionFromAlert, serviceFairOdds } from '../../alerts/position-from-alert.js';
import { markKey, placedMark } from '../../ledger/marks.js';
import { placedLegs, type Position } from '../../ledger/model.js';
import { worstCase } from '../../ledger/settle.js';
import type { Translate } from '../../locales/i18n.js';
import { translator } from '../../locales/i18n.js';
import type { Service } from '../../service/services.js';
import { encodeLedgerAction } from '../callback-data/ledger.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import type { PendingInput } from '../pending.js';
import { freshness, namesForLang, viewFor } from '../ui/cards.js';
import { refusedLegText } from '../ui/hedge-text.js';
import { matchTypedBookmaker } from './typed-bookmaker.js';

type LedgerLegInput = Extract<PendingInput, { kind: 'ledger-leg' }>;

const money = (x: number) => fmtMoney(x, { whole: true });
const signed = (x: number) => fmtMoney(x, { signed: true });

/** Re-draws the alert of `p` with its "✅ Placed" line, when the item is still held (else the next edit adds it). */
async function markAlert(rt: BotRuntime, api: Api, userId: number, p: Position): Promise<void> {
  if (p.chatId === null || p.messageId === null) return;
  const user = rt.store.getUser(userId);
  const item = (await rt.scheduler.latestItems(userId, p.service as Service)).find((o) => o.id === p.itemId);
  if (!user || !item) return;
  const placed = rt.store.ledger.marks(userId).get(markKey(p.service, p.itemId)) ?? placedMark(p);
  const names = await namesForLang(rt, user.lang);
  const rendered = formatAlert(item, names, { ...viewFor(user, user.lang, rt.clock.now(), undefined, freshness(rt, user)), ...(placed ? { placed } : {}) }, { state: 'new' });
  const keyboard = rendered.buttons.map((row) => row.map((b) => ({ text: b.text, callback_data: b.callbackData })));
  try {
    await api.editMessageText(p.chatId, p.messageId, rendered.text, { reply_markup: { inline_keyboard: keyboard }, link_preview_options: { is_disabled: true } });
  } catch (err) {
    rt.logger.debug({ err }, 'the alert could not be marked as placed');
  }
}

/** Asks for leg `leg` of `p` (or its open hedge) in the private chat and waits for the answer. */
async function askLeg(rt: BotRuntime, api: Api, chatId: number, userId: number, t: Translate, p: Position, leg: number, flow: boolean): Promise<void> {
  const l = p.legs[leg]!;
  const vars = { id: p.id, n: l.outcome + 1, total: p.legs.filter((x) => x.status !== 'open').length, book: escapeHtml(l.bookmaker), market: escapeHtml(l.market), odds: fmtOdds(l.odds), stake: money(l.stake) };
  const hedge = l.status === 'open';
  const buttons = hedge
    ? [[{ text: t('btn_ledger_give_up'), callback_data: encodeLedgerAction({ type: 'giveUp', positionId: p.id }) }]]
    : [[
        { text: t('btn_ledger_keep'), callback_data: encodeLedgerAction({ type: 'keep', positionId: p.id, leg }) },
        { text: t('btn_ledger_refused'), callback_data: encodeLedgerAction({ type: 'refuse', positionId: p.id, leg }) },
      ]];
  await api.sendMessage(chatId, t(hedge ? 'ledger_hedge_prompt' : 'ledger_leg_prompt', vars), { reply_markup: { inline_keyboard: buttons } });
  await rt.pending.set(chatId, userId, { kind: 'ledger-leg', positionId: p.id, leg, flow });
}

/** The summary once the ✏️ flow is through (or a single change is made): stakes and worst case. */
async function summarize(rt: BotRuntime, api: Api, chatId: number, userId: number, t: Translate, p: Position): Promise<void> {
  await rt.pending.clear(chatId, userId);
  const placed = placedLegs(p);
  if (placed.length === 0 && !p.legs.some((l) => l.status === 'open')) {
    await api.sendMessage(chatId, t('ledger_refused_all', { id: p.id }));
  } else {
    const stakes = placed.map((l) => money(l.stake)).join(' / ');
    const worst = worstCase(p);
    const text = worst === undefined || !Number.isFinite(worst) ? t('ledger_position_done_single', { id: p.id, stakes }) : t('ledger_position_done', { id: p.id, stakes, worst: signed(worst) });
    await api.sendMessage(chatId, text);
  }
  await markAlert(rt, api, userId, p);
}

/** The next leg of the ✏️ flow after `after`, or the summary when none is left. */
async function advance(rt: BotRuntime, api: Api, chatId: number, userId: number, t: Translate, p: Position, after: number): Promise<void> {
  const next = p.legs.findIndex((l, i) => i > after && l.status === 'placed');
  if (next >= 0) await askLeg(rt, api, chatId, userId, t, p, next, true);
  else await summarize(rt, api, chatId, userId, t, p);
}

/** "✅ Placed" (`differently` false) or "✏️ Placed differently" pressed under an alert the presser owns. */
export async function placeFromAlert(rt: BotRuntime, ctx: BotContext, action: { service: Service; itemId: string }, differently: boolean): Promise<void> {
  const userId = ctx.from!.id;
  const user = rt.store.getUser(userId);
  if (!user) return void (await ctx.answerCallbackQuery({ text: ctx.tp('not_your_alert'), show_alert: true }));
  const existing = rt.store.ledger.marks(userId).get(markKey(action.service, action.itemId));
  if (existing) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_already_placed', { id: existing.positionId }), show_alert: true }));
  const item = (await rt.scheduler.latestItems(userId, action.service)).find((o) => o.id === action.itemId);
  if (!item) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_item_gone'), show_alert: true }));
  const now = rt.clock.now();
  const names = await namesForLang(rt, user.lang);
  const message = ctx.callbackQuery?.message;
  let position: Position;
  try {
    const id = await rt.store.ledger.takeId(userId);
    const made = positionFromAlert(item, names, { bankroll: user.bankroll, roundingStep: user.roundingStep, books: user.books, stakingMode: user.stakingMode }, { id, now, chatId: message?.chat.id ?? null, messageId: message?.message_id ?? null });
    if ('ok' in made) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_cannot_place'), show_alert: true }));
    position = await rt.store.ledger.put(userId, made);
    const book = await rt.store.ledger.book(userId);
    if (book.settings.startBank === null) await rt.store.ledger.updateSettings(userId, { startBank: user.bankroll });
    if (position.kind === 'valuebets') {
      rt.store.ledger.noteClose(userId, position.id, 0, { odds: position.legs[0]!.odds, at: now, fairOdds: serviceFairOdds(item), market: null, index: 0 });
    }
  } catch (err) {
    if (isLedgerFull(err)) return answerLedgerFull(ctx, err.max);
    ctx.log.warn({ err }, 'recording a position failed');
    return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_store_failed'), show_alert: true }));
  }
  await ctx.answerCallbackQuery({ text: ctx.tp('ledger_placed', { id: position.id }) });
  await markAlert(rt, ctx.api, userId, position);
  if (differently) await askLeg(rt, ctx.api, user.chatId, userId, translator(user.lang), position, 0, true);
}

/** A typed answer to a leg's question: the odds and stake taken (and a bookmaker for a hedge). */
export async function acceptLedgerLeg(rt: BotRuntime, ctx: BotContext, text: string, pending: LedgerLegInput): Promise<void> {
  const userId = ctx.from!.id;
  const chatId = ctx.chat!.id;
  const taken = parseTaken(text);
  if (!taken) return void (await ctx.reply(ctx.t('ledger_bad_leg_input')));
  const p = (await rt.store.ledger.book(userId)).positions.find((x) => x.id === pending.positionId);
  const wasOpen = p?.legs[pending.leg]?.status === 'open';
  if (p && wasOpen && taken.bookmaker !== undefined) {
    const bookmaker = await matchTypedBookmaker(rt, ctx, taken.bookmaker, pending);
    if (bookmaker === undefined) return;
    taken.bookmaker = bookmaker;
  }
  const next = p && takeLeg(p, pending.leg, wasOpen ? taken : { odds: taken.odds, stake: taken.stake });
  if (!next) {
    await rt.pending.clear(chatId, userId);
    return void (await ctx.reply(ctx.t('ledger_leg_not_editable')));
  }
  const stored = await rt.store.ledger.put(userId, next);
  await ctx.reply(ctx.t('ledger_leg_saved', { n: stored.legs[pending.leg]!.outcome + 1, odds: fmtOdds(taken.odds), stake: money(taken.stake) }));
  if (pending.flow && !wasOpen) await advance(rt, ctx.api, chatId, userId, ctx.t, stored, pending.leg);
  else await summarize(rt, ctx.api, chatId, userId, ctx.t, stored);
}

/** ❌ on a leg: marked refused; the hedge's break-even odds and stake at the refused odds; the flow goes on. */
export async function refuseLeg(rt: BotRuntime, ctx: BotContext, p: Position, leg: number): Promise<void> {
  const userId = ctx.from!.id;
  const chatId = ctx.chat?.id ?? userId;
  const r = refuse(p, leg);
  if (!r) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_leg_not_editable'), show_alert: true }));
  const stored = await rt.store.ledger.put(userId, r.position);
  await ctx.answerCallbackQuery();
  const l = p.legs[leg]!;
  const pendingNow = await rt.pending.get(chatId, userId);
  const inFlow = pendingNow?.kind === 'ledger-leg' && pendingNow.positionId === p.id && pendingNow.flow;
  const openIndex = stored.legs.findIndex((x) => x.status === 'open' && x.outcome === l.outcome);
  if (r.hedge && openIndex >= 0) {
    const text = refusedLegText(ctx.t, leg + 1, l.bookmaker, l, r.hedge, stored.legs[openIndex]!.stake);
    await ctx.reply(text, {
      reply_markup: {
        inline_keyboard: [[
          { text: ctx.t('btn_ledger_hedge_placed'), callback_data: encodeLedgerAction({ type: 'edit', positionId: p.id, leg: openIndex }) },
          { text: ctx.t('btn_ledger_give_up'), callback_data: encodeLedgerAction({ type: 'giveUp', positionId: p.id }) },
        ]],
      },
    });
  } else if (placedLegs(stored).length === 0) {
    await ctx.reply(ctx.t('ledger_refused_all', { id: p.id }));
  }
  if (inFlow) await advance(rt, ctx.api, chatId, userId, ctx.t, stored, leg);
  else if (pendingNow?.kind === 'ledger-leg' && pendingNow.positionId === p.id) await rt.pending.clear(chatId, userId);
  await markAlert(rt, ctx.api, userId, stored);
}

/** ✅ "as shown" on a leg of the ✏️ flow: nothing changes; the next leg is asked. */
export async function keepLeg(rt: BotRuntime, ctx: BotContext, p: Position, leg: number): Promise<void> {
  await ctx.answerCallbackQuery();
  const userId = ctx.from!.id;
  await advance(rt, ctx.api, ctx.chat?.id ?? userId, userId, ctx.t, p, leg);
}

/** ✏️ on a leg or a hedge (after a refusal): its question. */
export async function editLeg(rt: BotRuntime, ctx: BotContext, p: Position, leg: number): Promise<void> {
  await ctx.answerCallbackQuery();
  const userId = ctx.from!.id;
  await askLeg(rt, ctx.api, ctx.chat?.id ?? userId, userId, ctx.t, p, leg, false);
}
