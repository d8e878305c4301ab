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
import { fmtMoney, fmtOdds, withUnit } from '../../alerts/printed.js';
import { giveBack } from './position-ids.js';
import { escapeHtml } from '../../lib/html.js';
import { refuse, takeLeg, parseTaken } from '../../ledger/actions.js';
import { resolveAround } from '../../alerts/resolve-placed.js';
import { MAX_MONEY } from '../../ledger/model.js';
import { subscriptionKey } from '../../store/schema.js';
import { clipEcho } from '../parse/values.js';
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
import { freshness, keepPrint, namesForLang, viewFor } from '../ui/cards.js';
import { refusedLegText } from '../ui/hedge-text.js';
import { matchTypedBookmaker } from './typed-bookmaker.js';

type LedgerLegInput = Extract<PendingInput, { kind: 'ledger-leg' }>;
/** What the ✏️ flow knows besides the position: its print (to re-solve legs), whether stakes were printed, re-solved stakes by leg. */
export type LegFlow = Pick<LedgerLegInput, 'printId' | 'unprinted' | 'suggest'>;

/** Amounts in the currency the position was recorded in. */
const money = (x: number, currency: string) => withUnit(fmtMoney(x, { whole: true }), currency);
const signed = (x: number, currency: string) => withUnit(fmtMoney(x, { signed: true }), currency);

/**
 * Re-draws the alert of `p` with its "✅ Placed" line, when it is the item's alert message and the
 * item is still held (else the next edit adds it; a gone alert or a card keeps the number on its
 * pressed button: placed-print.ts).
 */
export async function markAlert(rt: BotRuntime, api: Api, userId: number, p: Position): Promise<void> {
  if (p.chatId === null || p.messageId === null) return;
  const user = rt.store.getUser(userId);
  const item = (await rt.scheduler.latestItems(userId, p.service as Service)).find((o) => o.id === p.itemId);
  const entry = rt.store.alerts.get(subscriptionKey(userId, p.service as Service), p.itemId);
  // A card or a digest is not the alert: re-drawn as one, it would turn into it.
  if (!user || !item || (p.printId !== undefined && (entry?.chatId !== p.chatId || entry.messageId !== p.messageId))) return;
  const placed = rt.store.ledger.marks(userId).get(markKey(p.service, p.itemId)) ?? placedMark(p);
  const names = await namesForLang(rt, user.lang);
  const view = viewFor(user, user.lang, rt.clock.now(), undefined, freshness(rt, user));
  const printId = keepPrint(rt, { user }, item, names, view);
  const rendered = formatAlert(item, names, { ...view, ...(placed ? { placed } : {}), ...(printId ? { printId } : {}) }, { state: 'new' });
  const keyboard = rendered.buttons.map((row) => row.map((b) => ({ text: b.text, callback_data: b.callbackData })));
  try {
    await api.editMessageText(p.chatId, p.messageId, rendered.text, { reply_markup: { inline_keyboard: keyboard }, link_preview_options: { is_disabled: true } });
  } catch (err) {
    rt.logger.debug({ err }, 'the alert could not be marked as placed');
  }
}

/**
 * Asks for leg `leg` of `p` (or its open hedge) in the private chat and waits for the answer. With
 * a re-solved stake for the leg (`extra.suggest`), that is the one offered; on a message that printed
 * no stakes, the stake placed is asked for.
 */
export async function askLeg(rt: BotRuntime, api: Api, chatId: number, userId: number, t: Translate, p: Position, leg: number, flow: boolean, extra: LegFlow = {}): Promise<void> {
  const l = p.legs[leg]!;
  const suggested = extra.suggest?.[leg];
  const vars = { id: p.id, n: l.outcome + 1, total: p.legs.filter((x) => x.status !== 'open').length, book: escapeHtml(l.bookmaker), market: escapeHtml(l.market), odds: fmtOdds(l.odds), stake: money(suggested ?? l.stake, p.currency), printed: money(l.stake, p.currency), typed: money(suggested ?? l.stake, '') };
  const hedge = l.status === 'open';
  const keep = suggested !== undefined ? 'btn_ledger_keep_resolved' : extra.unprinted ? 'btn_ledger_keep_suggested' : 'btn_ledger_keep';
  const buttons = hedge
    ? [[{ text: t('btn_ledger_give_up'), callback_data: encodeLedgerAction({ type: 'giveUp', positionId: p.id }) }]]
    : [[
        { text: t(keep, { stake: vars.stake }), callback_data: encodeLedgerAction({ type: 'keep', positionId: p.id, leg }) },
        { text: t('btn_ledger_refused'), callback_data: encodeLedgerAction({ type: 'refuse', positionId: p.id, leg }) },
      ]];
  const prompt = hedge ? 'ledger_hedge_prompt' : suggested !== undefined ? 'ledger_leg_prompt_resolved' : extra.unprinted ? 'ledger_leg_prompt_unprinted' : 'ledger_leg_prompt';
  await api.sendMessage(chatId, t(prompt, vars), { reply_markup: { inline_keyboard: buttons } });
  await rt.pending.set(chatId, userId, { kind: 'ledger-leg', positionId: p.id, leg, flow, ...extra });
}

/** The summary once the ✏️ flow is through (or a single change is made): stakes and worst case. */
async function summarize(rt: BotRuntime, api: Api, chatId: number, userId: number, t: Translate, p: Position): Promise<void> {
  await rt.pending.clear(chatId, userId);
  const placed = placedLegs(p);
  if (placed.length === 0 && !p.legs.some((l) => l.status === 'open')) {
    await api.sendMessage(chatId, t('ledger_refused_all', { id: p.id }));
  } else {
    const stakes = placed.map((l) => money(l.stake, p.currency)).join(' / ');
    const worst = worstCase(p);
    const text = worst === undefined || !Number.isFinite(worst) ? t('ledger_position_done_single', { id: p.id, stakes }) : t('ledger_position_done', { id: p.id, stakes, worst: signed(worst, p.currency) });
    await api.sendMessage(chatId, text);
  }
  await markAlert(rt, api, userId, p);
}

/** The next leg of the ✏️ flow after `after`, or the summary when none is left. */
async function advance(rt: BotRuntime, api: Api, chatId: number, userId: number, t: Translate, p: Position, after: number, extra: LegFlow = {}): Promise<void> {
  const next = p.legs.findIndex((l, i) => i > after && l.status === 'placed');
  if (next >= 0) await askLeg(rt, api, chatId, userId, t, p, next, true, extra);
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
  const make = (id: string) =>
    positionFromAlert(item, names, { bankroll: user.bankroll, roundingStep: user.roundingStep, books: user.books, stakingMode: user.stakingMode }, { id, now, chatId: message?.chat.id ?? null, messageId: message?.message_id ?? null, currency: user.currency ?? '' });
  // Made once with a stand-in id first: an alert that cannot be recorded takes no position number.
  if ('ok' in make('0')) return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_cannot_place'), show_alert: true }));
  let id: string | undefined;
  try {
    id = await rt.store.ledger.takeId(userId);
    const made = make(id);
    if ('ok' in made) {
      await giveBack(rt, userId, id);
      return void (await ctx.answerCallbackQuery({ text: ctx.tp('ledger_cannot_place'), show_alert: true }));
    }
    position = await rt.store.ledger.put(userId, made);
    id = undefined;
    const book = await rt.store.ledger.book(userId);
    if (book.settings.startBank === null) await rt.store.ledger.updateSettings(userId, { startBank: user.bankroll });
    if (position.kind === 'valuebets') {
      rt.store.ledger.noteClose(userId, position.id, 0, { odds: position.legs[0]!.odds, at: now, fairOdds: serviceFairOdds(item), market: null, index: 0 });
    }
  } catch (err) {
    if (id !== undefined) await giveBack(rt, userId, id);
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
  const p = await rt.store.ledger.position(userId, pending.positionId);
  const leg = p?.legs[pending.leg];
  const wasOpen = leg?.status === 'open';
  // A stake alone is taken at the leg's printed odds (a hedge needs its odds).
  const stakeOnly = wasOpen || !leg ? undefined : parseStakeOnly(text);
  const taken = stakeOnly === undefined ? parseTaken(text) : { odds: leg!.odds, stake: stakeOnly };
  if (!taken) return void (await ctx.reply(ctx.t(wasOpen ? 'ledger_bad_leg_input' : 'ledger_bad_leg_input_stake', { text: clipEcho(text) })));
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
  await ctx.reply(ctx.t('ledger_leg_saved', { n: stored.legs[pending.leg]!.outcome + 1, odds: fmtOdds(taken.odds), stake: money(taken.stake, stored.currency) }));
  if (pending.flow && !wasOpen) {
    const changed = leg !== undefined && (leg.odds !== taken.odds || leg.stake !== (pending.suggest?.[pending.leg] ?? leg.stake));
    const suggest = changed ? await resolveLater(rt, ctx, stored, pending) : pending.suggest;
    await advance(rt, ctx.api, chatId, userId, ctx.t, stored, pending.leg, { ...flowOf(pending), ...(suggest ? { suggest } : {}) });
  } else await summarize(rt, ctx.api, chatId, userId, ctx.t, stored);
}

/** The flow's own fields of a pending leg question, without the re-solved stakes. */
const flowOf = (pending: LedgerLegInput): LegFlow => ({ ...(pending.printId ? { printId: pending.printId } : {}), ...(pending.unprinted ? { unprinted: true } : {}) });

/** "150" or "150.50": a stake alone; undefined for anything else. */
function parseStakeOnly(text: string): number | undefined {
  const m = /^\s*(\d{1,9}(?:[.,]\d{1,2})?)\s*$/.exec(text);
  const stake = m ? Number(m[1]!.replace(',', '.')) : NaN;
  return stake > 0 && stake <= MAX_MONEY ? stake : undefined;
}

/**
 * The legs still to ask, re-solved around those already answered (their odds and stakes fixed),
 * with the solver, caps and steps of ✏️ Leg limited; undefined (and said why) when that cannot be.
 */
async function resolveLater(rt: BotRuntime, ctx: BotContext, p: Position, pending: LedgerLegInput): Promise<number[] | undefined> {
  const user = rt.store.getUser(ctx.from!.id);
  const print = pending.printId ? await rt.store.prints.get(ctx.from!.id, pending.printId) : undefined;
  const later = p.legs.some((l, i) => i > pending.leg && l.status === 'placed');
  if (!user || !print || p.kind !== 'arbs' || !later || p.legs.length !== print.legs.length || p.legs.some((l) => l.status !== 'placed')) return undefined;
  const suggest = resolveAround(p, print, pending.leg, { bankroll: user.bankroll, roundingStep: user.roundingStep, books: user.books });
  if (!suggest) await ctx.reply(ctx.t('ledger_resolve_none'));
  return suggest;
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
    const text = refusedLegText(ctx.t, leg + 1, l.bookmaker, l, r.hedge, stored.legs[openIndex]!.stake, stored.currency);
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

/** ✅ "as shown" (or as re-solved) on a leg of the ✏️ flow: that stake is kept; the next leg is asked. */
export async function keepLeg(rt: BotRuntime, ctx: BotContext, p: Position, leg: number): Promise<void> {
  await ctx.answerCallbackQuery();
  const userId = ctx.from!.id;
  const chatId = ctx.chat?.id ?? userId;
  const pending = await rt.pending.get(chatId, userId);
  const mine = pending?.kind === 'ledger-leg' && pending.positionId === p.id && pending.leg === leg ? pending : undefined;
  const suggested = mine?.suggest?.[leg];
  const l = p.legs[leg];
  const kept = suggested !== undefined && l && suggested !== l.stake ? takeLeg(p, leg, { odds: l.odds, stake: suggested }) : undefined;
  const stored = kept ? await rt.store.ledger.put(userId, kept) : p;
  await advance(rt, ctx.api, chatId, userId, ctx.t, stored, leg, mine ? { ...flowOf(mine), ...(mine.suggest ? { suggest: mine.suggest } : {}) } : {});
}

/** ✏️ on a leg or a hedge (after a refusal): its question. */
export async function editLeg(rt: BotRuntime, ctx: BotContext, p: Position, leg: number): Promise<void> {
  await ctx.answerCallbackQuery();
  const userId = ctx.from!.id;
  await askLeg(rt, ctx.api, ctx.chat?.id ?? userId, userId, ctx.t, p, leg, false);
}
