/**
 * `/settings currency EUR`: the currency shown beside every amount: an alert's, a card's and an
 * inline result's stakes (from the user record, which every printer already holds, so no alert
 * reads the ledger) and the ledger's (/open, /pnl, the CSV's `currency` column: kept in the ledger's
 * settings too, which its records and exports read). A code is three Latin letters,
 * as ISO 4217 writes them (case is forgiven: "eur" is EUR); `none` removes it. Anything else is
 * quoted back with what to send, and nothing changes.
 */
import { CURRENCY_CODE } from '../../ledger/model.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { clipEcho } from '../parse/values.js';

/** The setting's name as typed (English and Russian). */
export const CURRENCY_WORDS: ReadonlySet<string> = new Set(['currency', 'валюта']);
const NONE_WORDS: ReadonlySet<string> = new Set(['none', 'off', '-', 'нет']);

export async function setCurrency(rt: BotRuntime, ctx: BotContext, value: string): Promise<void> {
  const typed = value.trim();
  const code = NONE_WORDS.has(typed.toLowerCase()) ? null : typed.toUpperCase();
  if (code !== null && !CURRENCY_CODE.test(code)) return void (await ctx.reply(ctx.t('settings_currency_bad', { value: clipEcho(typed) })));
  const userId = ctx.from!.id;
  await rt.store.ledger.updateSettings(userId, { currency: code });
  rt.store.updateUser(userId, (draft) => void (draft.currency = code), { chatId: ctx.chat!.id, lang: ctx.lang });
  // The scheduler's copy of the user prints the next alert and edit with it.
  rt.scheduler.refreshUser(userId);
  await ctx.reply(code === null ? ctx.t('settings_currency_cleared') : ctx.t('settings_currency_saved', { code }));
}
