/**
 * /glossary: what the market codes of the alerts (`ITO1(0.5)`, `BTS: no`, `X2`) and the betting
 * words (arb, middle, valuebet, EV, liability, commission, worst case, yield, CLV) mean, from
 * `locales/glossary.ts`. `/glossary ITO1` answers just that entry (`/glossary EV` the EV entry, then
 * the valuebet's); anything it does not know gets a clear answer and the full list's command.
 */
import { Composer } from 'grammy';
import { findInGlossary, glossaryEntriesHtml, glossaryMessages } from '../../locales/glossary.js';
import type { BotContext } from '../context.js';

/** Longer than any code or word in the glossary; a longer argument is not looked up. */
const MAX_QUERY = 64;

export function glossaryFeature(): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  composer.command('glossary', async (ctx) => {
    const query = typeof ctx.match === 'string' ? ctx.match.trim() : '';
    if (query === '') {
      for (const message of glossaryMessages(ctx.lang)) await ctx.reply(message);
      return;
    }
    const found = query.length <= MAX_QUERY ? findInGlossary(ctx.lang, query) : [];
    await ctx.reply(found.length > 0 ? glossaryEntriesHtml(found) : ctx.t('glossary_not_found', { query: query.slice(0, MAX_QUERY) }));
  });
  return composer;
}
