/**
 * /rank: the user's order of their services for the key's token budget. The token plan gives
 * every service one window, then the rest of the hour to the first in this order, then the next
 * (src/scheduler/token-plan.ts), so with three services the first is read all the time and the
 * third about one window an hour. By default live services come first (a live opportunity lasts
 * seconds); a bettor who cares most about prematch valuebets puts them first. One line, no flow:
 * `/rank valuebets_prematch arbs_live` puts those first in that order (the rest follow in the
 * default order), `/rank reset` goes back to the default, `/rank` alone shows the order with each
 * service's coverage. Stored in the user record (`serviceRank`), so both stores and
 * `npm run migrate` keep it, and the scheduler replans at once.
 */
import { Composer } from 'grammy';
import { orderServices } from '../../scheduler/token-plan.js';
import { parseService, SERVICES, type Service } from '../../service/services.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { clipEcho } from '../parse/values.js';
import { coverageMeaning } from '../ui/budget-text.js';

/** The user's services (filters and drafts) in the plan's order, numbered, each with its coverage in words. */
function orderLines(rt: BotRuntime, ctx: BotContext, userId: number): string {
  const user = rt.store.getUser(userId);
  if (!user) return '';
  const coverage = rt.scheduler.coverage(userId);
  const mine = SERVICES.filter((s) => coverage[s] !== undefined);
  return orderServices(mine, user.serviceRank)
    .map((s, i) => `${i + 1}. ${coverageMeaning(s, coverage[s]!, ctx.t)}`)
    .join('\n');
}

type Parsed = { ok: true; rank: Service[] } | { ok: false; text: string };

function parseRank(ctx: BotContext, words: string[]): Parsed {
  const rank: Service[] = [];
  for (const word of words) {
    const service = parseService(word);
    if (!service) return { ok: false, text: ctx.t('rank_bad', { value: clipEcho(word) }) };
    if (rank.includes(service)) return { ok: false, text: ctx.t('rank_twice', { value: clipEcho(word) }) };
    rank.push(service);
  }
  return { ok: true, rank };
}

export function rankFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('rank', async (ctx) => {
    const userId = ctx.from?.id;
    const user = ctx.user;
    if (userId === undefined) return;
    const mine = user ? SERVICES.filter((s) => user.filters[s] !== undefined || user.drafts[s] !== undefined) : [];
    if (!user || mine.length === 0) {
      await ctx.reply(ctx.t('rank_none'));
      return;
    }
    const words = ctx.match.trim().split(/[\s,]+/).filter(Boolean);
    if (words.length === 0) {
      await ctx.reply(ctx.t('rank_show', { list: orderLines(rt, ctx, userId) }));
      return;
    }
    const reset = words.length === 1 && words[0]!.toLowerCase() === 'reset';
    const parsed: Parsed = reset ? { ok: true, rank: [] } : parseRank(ctx, words);
    if (!parsed.ok) {
      await ctx.reply(parsed.text);
      return;
    }
    rt.store.updateUser(userId, (draft) => {
      draft.serviceRank = parsed.rank;
    });
    // The key's plan follows the new order at once.
    rt.scheduler.refreshUser(userId);
    await ctx.reply(ctx.t(reset ? 'rank_reset' : 'rank_set', { list: `\n${orderLines(rt, ctx, userId)}` }));
  });

  return composer;
}
