/**
 * /books, /book and /staking: the user's settings per bookmaker (commission on winnings, the most and least
 * a bookmaker takes, the step of its stakes, and the account's status), which every alert's
 * maths use (alerts/alert-stakes.ts). `/books` lists the user's bookmakers (those with settings,
 * the exchanges of the dictionaries, those in the user's filters and in the alerts they get) with
 * their settings and buttons that switch a status (named by the status they set), reset, or set one value (✏️ → commission / max / min / step → the typed
 * value, checked as the one-line form checks it; `/books <name>` opens ✏️ for one not listed); `/book <bookmaker> key=value …` sets values in one line;
 * `/staking equal|high|low` chooses how the user's alerts split an arb.
 */
import { Composer } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import { BOOK_STATUSES, type BookSettings, type BookStatus } from '../../store/book-settings.js';
import { defaultCommissionPct, isKnownExchange } from '../../alerts/leg-pricing.js';
import { fmtMoney, withUnit } from '../../alerts/printed.js';
import type { Translate } from '../../locales/i18n.js';
import { subscriptionKey, type UserRecord } from '../../store/schema.js';
import { BOOK_VALUE_OPTIONS, decodeBooksAction, encodeBooksAction, kindPattern, type BookValueOption } from '../callback-data/index.js';
import { askWhereAnswerable } from '../ask-private.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { refuseWhileSecretExpected } from '../flows.js';
import type { PendingInput } from '../pending.js';
import { applyBookChange, findBookmaker, parseBookArgs, parseBookValue, type BookChange } from '../parse/book-args.js';
import { clipEcho, MAX_SHORT_TEXT } from '../parse/values.js';
import { BOOK_LIMITS } from '../../store/book-settings.js';
import { dictionariesFor } from '../ui/cards.js';
import { editInPlace } from '../ui/rendered.js';
import { miniAppRow } from './mini-app.js';

/** At most this many bookmakers get buttons (a keyboard stays usable on a phone). */
const MAX_BUTTON_ROWS = 12;
/** At most this many are listed. */
const MAX_LISTED = 40;

const STAKING_MODES = ['equal', 'high', 'low'] as const;

const STATUS_KEY = { ok: 'books_status_ok', limited: 'books_status_limited', closed: 'books_status_closed' } as const;
const SET_STATUS_KEY = { ok: 'btn_book_set_ok', limited: 'btn_book_set_limited', closed: 'btn_book_set_closed' } as const;
const nextStatus = (s: BookStatus): BookStatus => BOOK_STATUSES[(BOOK_STATUSES.indexOf(s) + 1) % BOOK_STATUSES.length] ?? 'ok';

/** "commission 2 % · max 300 · step 5 · ⚠️ limited" for one bookmaker. */
export function describeBook(settings: BookSettings | undefined, name: string, t: Translate, currency: string): string {
  const parts: string[] = [];
  const amount = (n: number) => withUnit(fmtMoney(n, { whole: true }), currency);
  if (settings?.commission !== undefined) parts.push(t('books_commission', { value: settings.commission }));
  else if (defaultCommissionPct(name) > 0) parts.push(t('books_commission_default', { value: defaultCommissionPct(name) }));
  if (settings?.max !== undefined) parts.push(t('books_max', { value: amount(settings.max) }));
  if (settings?.min !== undefined) parts.push(t('books_min', { value: amount(settings.min) }));
  if (settings?.step !== undefined) parts.push(t('books_step', { value: amount(settings.step) }));
  parts.push(t(STATUS_KEY[settings?.status ?? 'ok']));
  return parts.join(' · ');
}

/**
 * The bookmakers of the alerts the user gets now: the legs of the items last read for them that
 * were alerted (an item withheld for them — below their minimum after commission, muted — is
 * not). A live filter names no bookmakers, so its alerts' books are found only here.
 */
async function alertedBookmakers(rt: BotRuntime, user: Readonly<UserRecord> | undefined): Promise<string[]> {
  if (!user) return [];
  const ids = new Set<string>();
  for (const item of await rt.scheduler.latestItems(user.id)) {
    // No entry here (a cluster's front: the worker holds the alert state) counts as alerted.
    if (rt.store.alerts.get(subscriptionKey(user.id, item.service), item.id)?.withheld === true) continue;
    for (const leg of item.legs) ids.add(String(leg.bookmakerId));
  }
  return [...ids].sort((a, b) => Number(a) - Number(b));
}

/**
 * The bookmaker ids /books lists: with settings first, then exchanges, then those in the user's
 * filters, then those of the alerts they get (`alerted`).
 */
function listedIds(user: Readonly<UserRecord> | undefined, bookmakers: Readonly<Record<string, string>>, alerted: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const id of Object.keys(user?.books ?? {})) if (bookmakers[id] !== undefined) ids.add(id);
  for (const [id, name] of Object.entries(bookmakers)) if (isKnownExchange(name)) ids.add(id);
  for (const filter of Object.values(user?.filters ?? {})) {
    for (const id of filter?.settings.bookmakers ?? []) if (bookmakers[String(id)] !== undefined) ids.add(String(id));
  }
  for (const id of alerted) if (bookmakers[id] !== undefined) ids.add(id);
  return [...ids].slice(0, MAX_LISTED);
}

function booksView(
  user: Readonly<UserRecord> | undefined,
  bookmakers: Readonly<Record<string, string>>,
  alerted: readonly string[],
  t: Translate,
): { text: string; keyboard: InlineKeyboardButton[][] } {
  const ids = listedIds(user, bookmakers, alerted);
  const lines = [t('books_title'), ''];
  if (ids.length === 0) lines.push(t('books_none'));
  for (const id of ids) {
    const name = bookmakers[id] ?? id;
    lines.push(t('books_line', { name, id, parts: describeBook(user?.books[id], name, t, user?.currency ?? '') }));
  }
  lines.push('', t('books_hint'));
  const keyboard = ids.slice(0, MAX_BUTTON_ROWS).map((id) => {
    const name = (bookmakers[id] ?? id).slice(0, 24);
    const settings = user?.books[id];
    const status = settings?.status ?? 'ok';
    const row: InlineKeyboardButton[] = [
      {
        // The action, verb first ("Set ⚠️ limited: Betfair"): the state is in the text above.
        text: t(SET_STATUS_KEY[nextStatus(status)], { name }),
        callback_data: encodeBooksAction({ type: 'status', bookmakerId: Number(id), status: nextStatus(status) }),
      },
      { text: t('btn_book_edit', { name }), callback_data: encodeBooksAction({ type: 'edit', bookmakerId: Number(id) }) },
    ];
    if (settings) row.push({ text: t('btn_book_reset', { name }), callback_data: encodeBooksAction({ type: 'reset', bookmakerId: Number(id) }) });
    return row;
  });
  return { text: lines.join('\n'), keyboard };
}

/** The English names too, for a user of another language (the service's own names are English). */
function englishBookmakers(rt: BotRuntime, ctx: BotContext): Readonly<Record<string, string>> | undefined {
  return ctx.lang === 'en' ? undefined : rt.client.cachedDictionaries('en')?.bookmakers;
}

/** Stores a change of one bookmaker's settings; the problem's key when it cannot be applied. */
function store(rt: BotRuntime, ctx: BotContext, change: BookChange): { ok: true; user: UserRecord } | { ok: false; text: string } {
  const from = ctx.from;
  const chat = ctx.chat;
  if (!from || !chat) return { ok: false, text: ctx.t('book_usage') };
  const next = applyBookChange(ctx.user?.books ?? {}, change, ctx.user?.roundingStep);
  if (!next.ok) return { ok: false, text: ctx.t(next.problem.key, next.problem.vars) };
  const user = rt.store.updateUser(
    from.id,
    (draft) => {
      draft.books = next.value;
    },
    { chatId: chat.id, lang: ctx.lang },
  );
  return { ok: true, user };
}

const VALUE_BUTTON_KEY = {
  commission: 'btn_book_value_commission',
  max: 'btn_book_value_max',
  min: 'btn_book_value_min',
  step: 'btn_book_value_step',
} as const satisfies Record<BookValueOption, string>;
const ASK_VALUE_KEY = { commission: 'ask_book_commission', max: 'ask_book_max', min: 'ask_book_min', step: 'ask_book_step' } as const satisfies Record<BookValueOption, string>;

/** ✏️ on a bookmaker: its settings and a button per value to set. */
function editView(user: Readonly<UserRecord> | undefined, bookmakerId: number, name: string, t: Translate): { text: string; keyboard: InlineKeyboardButton[][] } {
  const buttons = BOOK_VALUE_OPTIONS.map((option) => ({ text: t(VALUE_BUTTON_KEY[option]), callback_data: encodeBooksAction({ type: 'value', bookmakerId, option }) }));
  return {
    text: t('book_edit_title', { name, parts: describeBook(user?.books[String(bookmakerId)], name, t, user?.currency ?? '') }),
    keyboard: [buttons.slice(0, 2), buttons.slice(2)],
  };
}

/** A value's button: the question, in the private chat when pressed in a group (the bot reads no plain messages there). */
async function askBookValue(rt: BotRuntime, ctx: BotContext, bookmakerId: number, name: string, option: BookValueOption): Promise<void> {
  const from = ctx.from;
  const chat = ctx.chat;
  if (!from || !chat) return;
  if (await refuseWhileSecretExpected(rt, ctx)) return;
  const question = ctx.t(ASK_VALUE_KEY[option], { name, max: BOOK_LIMITS.commissionMax });
  await askWhereAnswerable(rt, ctx, {
    text: question,
    input: () => ({ kind: 'book-value', bookmakerId, option }),
    askedPrivately: 'book_asked_private',
    what: 'a bookmaker value',
  });
}

/** The typed value after a /books value button: saved as `/book <id> <option>=<value>` would be, or why not (the question stays open). */
export async function acceptBookValue(rt: BotRuntime, ctx: BotContext, text: string, pending: Extract<PendingInput, { kind: 'book-value' }>): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  const dicts = await dictionariesFor(rt, ctx.lang);
  const name = dicts?.bookmakers[String(pending.bookmakerId)];
  if (!dicts || name === undefined) {
    await rt.pending.clear(ctx.chat.id, ctx.from.id);
    await ctx.reply(ctx.t('books_no_names'));
    return;
  }
  const value = parseBookValue(pending.option, text);
  const saved = value.ok ? store(rt, ctx, { bookmakerId: pending.bookmakerId, name, reset: false, set: value.value }) : undefined;
  if (!value.ok || !saved?.ok) {
    const problem = value.ok ? (saved && !saved.ok ? saved.text : '') : ctx.t(value.problem.key, value.problem.vars);
    await ctx.reply(`${problem}\n${ctx.t('book_value_again')}`);
    return;
  }
  await rt.pending.clear(ctx.chat.id, ctx.from.id);
  await ctx.reply(ctx.t('book_saved', { name, parts: describeBook(saved.user.books[String(pending.bookmakerId)], name, ctx.t, saved.user.currency ?? '') }));
}

export function booksFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('books', async (ctx) => {
    const dicts = await dictionariesFor(rt, ctx.lang);
    if (!dicts) {
      await ctx.reply(ctx.t('books_no_names'));
      return;
    }
    // "/books pinnacle": the ✏️ buttons of one bookmaker, listed or not yet.
    if (ctx.match.trim() !== '') {
      if (ctx.match.length > MAX_SHORT_TEXT) {
        await ctx.reply(ctx.t('too_long', { max: MAX_SHORT_TEXT, value: clipEcho(ctx.match) }));
        return;
      }
      const found = findBookmaker(ctx.match, dicts.bookmakers, englishBookmakers(rt, ctx));
      if (!found.ok) {
        await ctx.reply(ctx.t(found.problem.key, found.problem.vars));
        return;
      }
      const edit = editView(ctx.user, found.value.id, found.value.name, ctx.t);
      await ctx.reply(edit.text, { reply_markup: { inline_keyboard: edit.keyboard } });
      return;
    }
    const view = booksView(ctx.user, dicts.bookmakers, await alertedBookmakers(rt, ctx.user), ctx.t);
    await ctx.reply(view.text, { reply_markup: { inline_keyboard: [...view.keyboard, ...miniAppRow(rt.config.MINI_APP_URL, ctx, 'books')] } });
  });

  composer.command('book', async (ctx) => {
    const dicts = await dictionariesFor(rt, ctx.lang);
    if (!dicts) {
      await ctx.reply(ctx.t('books_no_names'));
      return;
    }
    const parsed = parseBookArgs(ctx.match, dicts.bookmakers, englishBookmakers(rt, ctx));
    if (!parsed.ok) {
      const problem = ctx.t(parsed.problem.key, parsed.problem.vars);
      await ctx.reply(parsed.problem.key === 'book_usage' ? problem : `${problem}\n\n${ctx.t('book_usage')}`);
      return;
    }
    const change = parsed.value;
    const saved = store(rt, ctx, change);
    if (!saved.ok) {
      await ctx.reply(saved.text);
      return;
    }
    const id = String(change.bookmakerId);
    await ctx.reply(
      change.reset
        ? ctx.t('book_reset_done', { name: change.name })
        : ctx.t('book_saved', { name: change.name, parts: describeBook(saved.user.books[id], change.name, ctx.t, saved.user.currency ?? '') }),
    );
  });

  composer.command('staking', async (ctx) => {
    const word = ctx.match.trim().toLowerCase();
    const mode = STAKING_MODES.find((m) => m === word);
    if (!mode || !ctx.from) {
      // No mode, or one it does not know: the usage, with the mode in force; nothing changes.
      await ctx.reply(ctx.t('staking_usage', { mode: ctx.t(`staking_${ctx.user?.stakingMode ?? 'equal'}`) }));
      return;
    }
    rt.store.updateUser(
      ctx.from.id,
      (draft) => {
        draft.stakingMode = mode;
      },
      { chatId: ctx.chat.id, lang: ctx.lang },
    );
    await ctx.reply(ctx.t('staking_saved', { mode: ctx.t(`staking_${mode}`) }));
  });

  composer.callbackQuery(kindPattern('books'), async (ctx) => {
    const action = decodeBooksAction(ctx.callbackQuery.data);
    const dicts = await dictionariesFor(rt, ctx.lang);
    const name = action && dicts ? dicts.bookmakers[String(action.bookmakerId)] : undefined;
    // A forged or stale button (an id the dictionaries do not know) changes nothing.
    if (!action || !dicts || name === undefined) {
      await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') });
      return;
    }
    if (action.type === 'edit') {
      const view = editView(ctx.user, action.bookmakerId, name, ctx.t);
      await ctx.answerCallbackQuery();
      await ctx.reply(view.text, { reply_markup: { inline_keyboard: view.keyboard } });
      return;
    }
    if (action.type === 'value') {
      await askBookValue(rt, ctx, action.bookmakerId, name, action.option);
      return;
    }
    const change: BookChange =
      action.type === 'reset'
        ? { bookmakerId: action.bookmakerId, name, reset: true }
        : { bookmakerId: action.bookmakerId, name, reset: false, set: { status: action.status } };
    const saved = store(rt, ctx, change);
    if (!saved.ok) {
      await ctx.answerCallbackQuery({ text: saved.text.slice(0, 190) });
      return;
    }
    const status = saved.user.books[String(action.bookmakerId)]?.status ?? 'ok';
    await ctx.answerCallbackQuery({ text: ctx.tp('book_button_done', { name, status: ctx.tp(STATUS_KEY[status]) }) });
    const view = booksView(saved.user, dicts.bookmakers, await alertedBookmakers(rt, saved.user), ctx.t);
    await editInPlace(rt.rendered, ctx, view.text, { inline_keyboard: view.keyboard });
  });

  return composer;
}
