/**
 * /add: a position placed outside any alert, into the same ledger (the same settle, /pnl and CSV).
 * `/add pinnacle W1 2.10 100 "Team A — Team B"` records at once (several legs separated by `;`);
 * `/add` alone asks step by step — bookmaker (matched to the dictionaries), market (words or a
 * code), odds and stake, back or lay, event — each answer checked, a bad one quoted back and asked
 * again. Nothing is recorded, and no position number taken, until every value is good.
 */
import { Composer } from 'grammy';
import { commissionFor } from '../../alerts/leg-pricing.js';
import { manualPosition, marketCode, parseAddLine, type FoundBook, type ManualLeg } from '../../ledger/manual.js';
import { MAX_MONEY, MAX_ODDS } from '../../ledger/model.js';
import type { MessageKey } from '../../locales/i18n.js';
import { encodeLedgerEdit } from '../callback-data/ledger-edit.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import type { AddDraft, AddStep, PendingInput } from '../pending.js';
import { findBookmaker } from '../parse/book-args.js';
import { dictionariesFor } from '../ui/cards.js';
import { digestOf } from './typed-bookmaker.js';
import { editRow } from '../ui/ledger-buttons.js';
import { positionLines } from '../ui/ledger-text.js';
import { giveBack } from './position-ids.js';

type AddInput = Extract<PendingInput, { kind: 'ledger-add' }>;

/** Matching is asynchronous (the dictionaries may be fetched once); the parser takes a plain function, so names are found first. */
async function bookFinder(rt: BotRuntime, ctx: BotContext): Promise<(name: string) => FoundBook> {
  const dicts = await dictionariesFor(rt, ctx.lang);
  const english = ctx.lang === 'en' ? undefined : rt.client.cachedDictionaries('en')?.bookmakers;
  const books = rt.store.getUser(ctx.from!.id)?.books;
  return (name) => {
    // No dictionaries to check against (the service unreachable): the name as typed, as a hedge's is.
    if (!dicts || Object.keys(dicts.bookmakers).length === 0) return { ok: true, name: name.trim().slice(0, 64), commission: commissionFor(undefined, name, books).commission };
    const found = findBookmaker(name, dicts.bookmakers, english);
    if (!found.ok) {
      const { key, vars } = found.problem;
      return { ok: false, key: key === 'book_ambiguous' ? 'add_book_ambiguous' : 'add_book_unknown', names: String(vars?.names ?? '') };
    }
    return { ok: true, name: found.value.name, commission: commissionFor(found.value.id, found.value.name, books).commission };
  };
}

/** A bookmaker the user typed, matched to the dictionaries in their language, with their commission there. */
export async function matchBook(rt: BotRuntime, ctx: BotContext, typed: string): Promise<FoundBook> {
  return (await bookFinder(rt, ctx))(typed);
}

async function record(rt: BotRuntime, ctx: BotContext, event: string, legs: readonly ManualLeg[]): Promise<void> {
  const userId = ctx.from!.id;
  const user = rt.store.getUser(userId);
  let id: string | undefined;
  try {
    const book = await rt.store.ledger.book(userId);
    id = await rt.store.ledger.takeId(userId);
    const stored = await rt.store.ledger.put(userId, manualPosition(id, rt.clock.now(), event, legs, user?.currency ?? book.settings.currency ?? ''));
    id = undefined;
    if (book.settings.startBank === null && user) await rt.store.ledger.updateSettings(userId, { startBank: user.bankroll });
    const lines = positionLines(stored, ctx.lang, user?.timeZone ?? 'UTC', ctx.t).join('\n');
    await ctx.reply(`${ctx.t('add_recorded', { id: stored.id })}\n\n${lines}`, { reply_markup: { inline_keyboard: [editRow(stored, ctx.t)] } });
  } catch (err) {
    if (id !== undefined) await giveBack(rt, userId, id);
    ctx.log.warn({ err }, 'recording an /add position failed');
    await ctx.reply(ctx.t('ledger_store_failed'));
  }
}

const QUESTION: Record<AddStep, MessageKey> = {
  book: 'add_ask_book',
  market: 'add_ask_market',
  price: 'add_ask_price',
  side: 'add_ask_side',
  event: 'add_ask_event',
};

async function ask(rt: BotRuntime, ctx: BotContext, step: AddStep, draft: AddDraft): Promise<void> {
  const userId = ctx.from!.id;
  await rt.pending.set(ctx.chat?.id ?? userId, userId, { kind: 'ledger-add', step, draft });
  const buttons =
    step === 'side'
      ? [[
          { text: ctx.t('btn_add_back'), callback_data: encodeLedgerEdit({ type: 'side', lay: false }) },
          { text: ctx.t('btn_add_lay'), callback_data: encodeLedgerEdit({ type: 'side', lay: true }) },
        ]]
      : [];
  await ctx.reply(ctx.t(QUESTION[step], { book: draft.book ?? '' }), { reply_markup: { inline_keyboard: buttons } });
}

const number = (text: string): number | undefined => (/^\s*\d{1,9}(?:[.,]\d{1,4})?\s*$/.test(text) ? Number(text.trim().replace(',', '.')) : undefined);

/** One answer of the guided /add. */
export async function acceptAddStep(rt: BotRuntime, ctx: BotContext, text: string, pending: AddInput): Promise<void> {
  const { step, draft } = pending;
  const value = text.trim().slice(0, 60);
  switch (step) {
    case 'book': {
      const found = await matchBook(rt, ctx, text);
      if (found.ok) return ask(rt, ctx, 'market', { book: found.name, commission: found.commission });
      // A bookmaker the service does not list (a local bookie): the same name twice records it as typed.
      const digest = digestOf(text.trim());
      if (draft.newBook === digest && text.trim().length <= 64) return ask(rt, ctx, 'market', { book: text.trim(), commission: commissionFor(undefined, text, rt.store.getUser(ctx.from!.id)?.books).commission });
      await rt.pending.set(ctx.chat!.id, ctx.from!.id, { kind: 'ledger-add', step: 'book', draft: { newBook: digest } });
      return void (await ctx.reply(`${ctx.t(found.key, { value, names: found.names ?? '' })}\n${ctx.t('add_book_confirm_new', { value })}`));
    }
    case 'market': {
      const market = marketCode(text, ctx.lang === 'ru' ? 'ru' : 'en');
      if (market === '' || market.length > 120) return void (await ctx.reply(ctx.t('add_bad_market', { value })));
      return ask(rt, ctx, 'price', { ...draft, market });
    }
    case 'price': {
      // Odds and stake in one answer, as ✏️ Placed differently asks them ("2.10 100").
      const words = text.trim().split(/\s+/);
      const odds = number(words[0] ?? '');
      const stake = number(words[1] ?? '');
      if (odds === undefined || !(odds > 1 && odds <= MAX_ODDS)) return void (await ctx.reply(ctx.t('add_bad_odds', { value, max: MAX_ODDS })));
      if (words.length !== 2 || stake === undefined || !(stake > 0 && stake <= MAX_MONEY)) return void (await ctx.reply(ctx.t('add_bad_stake', { value, max: MAX_MONEY })));
      return ask(rt, ctx, 'side', { ...draft, odds, stake });
    }
    case 'side': {
      const word = text.trim().toLowerCase();
      if (!['back', 'lay', 'за', 'против'].includes(word)) return void (await ctx.reply(ctx.t('add_bad_side', { value })));
      return chooseSide(rt, ctx, word === 'lay' || word === 'против', draft);
    }
    case 'event': {
      const event = text.trim() === '-' ? '' : text.trim();
      if (event.length > 200) return void (await ctx.reply(ctx.t('add_bad_event', { max: 200 })));
      const { book, commission, market, odds, stake, lay } = draft;
      await rt.pending.clear(ctx.chat!.id, ctx.from!.id);
      if (book === undefined || market === undefined || odds === undefined || stake === undefined) return void (await ctx.reply(ctx.t('ledger_leg_not_editable')));
      return record(rt, ctx, event, [{ bookmaker: book, commission: commission ?? 0, market, odds, stake, lay: lay ?? false }]);
    }
  }
}

/** Back or lay, from the question's buttons or typed. */
export async function chooseSide(rt: BotRuntime, ctx: BotContext, lay: boolean, draft?: AddDraft): Promise<void> {
  const userId = ctx.from!.id;
  const pending = draft ? undefined : await rt.pending.get(ctx.chat?.id ?? userId, userId);
  const current = draft ?? (pending?.kind === 'ledger-add' && pending.step === 'side' ? pending.draft : undefined);
  if (!current) return void (await ctx.reply(ctx.t('add_flow_gone')));
  return ask(rt, ctx, 'event', { ...current, lay });
}

export function ledgerAddFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('add', async (ctx) => {
    const line = ctx.match.trim();
    if (line === '') return ask(rt, ctx, 'book', {});
    const parsed = parseAddLine(line, ctx.lang === 'ru' ? 'ru' : 'en', await bookFinder(rt, ctx));
    if (!parsed.ok) {
      const which = typeof parsed.vars.leg === 'number' ? `${ctx.t('add_in_leg', { n: parsed.vars.leg })} ` : '';
      const hint = parsed.key === 'add_book_unknown' ? `\n${ctx.t('add_book_unknown_line')}` : '';
      return void (await ctx.reply(`${which}${ctx.t(parsed.key as MessageKey, parsed.vars)}${hint}\n\n${ctx.t('add_usage')}`));
    }
    return record(rt, ctx, parsed.value.event, parsed.value.legs);
  });
  return composer;
}
