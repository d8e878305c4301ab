/**
 * `/settings currency EUR`: the currency the ledger shows beside amounts (/open, /pnl, the CSV's
 * `currency` column). Kept in the ledger's settings, both stores. A code is three Latin letters,
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
  if (NONE_WORDS.has(typed.toLowerCase())) {
    await rt.store.ledger.updateSettings(ctx.from!.id, { currency: null });
    return void (await ctx.reply(ctx.t('settings_currency_cleared')));
  }
  const code = typed.toUpperCase();
  if (!CURRENCY_CODE.test(code)) return void (await ctx.reply(ctx.t('settings_currency_bad', { value: clipEcho(typed) })));
  await rt.store.ledger.updateSettings(ctx.from!.id, { currency: code });
  await ctx.reply(ctx.t('settings_currency_saved', { code }));
}
