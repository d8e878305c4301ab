/**
 * /filter: the builder conversation, or the one-line form parsed strictly and saved at once. The
 * one-line form changes only what it names in the saved filter (`reset` starts from scratch), and
 * its answer lists the whole resulting filter, so nothing is replaced without the user seeing it.
 */
import { Composer } from 'grammy';
import { saveFilter } from '../actions/save-filter.js';
import type { BotContext } from '../context.js';
import { FILTER_CONVERSATION, saveOutcomeText, type FilterConversationArgs } from '../conversations/filter.js';
import type { BotRuntime } from '../deps.js';
import { parseFilterArgs } from '../parse/filter-args.js';
import { dictionariesFor } from '../ui/cards.js';
import { coverageTradeOff, describeFilter } from '../ui/filter-text.js';
import { neverMatches } from '../ui/filter-warnings.js';
import { namesFor } from '../../service/dictionaries-model.js';
import { leaveFlows } from '../flows.js';

export function filterFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('filter', async (ctx) => {
    const user = ctx.user;
    if (!user?.key) {
      await ctx.reply(ctx.t('need_key'));
      return;
    }
    const text = ctx.match.trim();
    if (text === '') {
      await leaveFlows(rt, ctx, { quiet: true });
      const args: FilterConversationArgs = { lang: ctx.lang };
      await ctx.conversation.enter(FILTER_CONVERSATION, args);
      return;
    }

    const dicts = await dictionariesFor(rt, ctx.lang);
    // Names may be typed in English in any language (the service's own names are English).
    const english = ctx.lang === 'en' ? undefined : rt.client.cachedDictionaries('en');
    // A draft waiting for the token budget is the user's latest build: a one-line change applies to it.
    const parsed = parseFilterArgs(text, dicts, english, (service) => (user.drafts[service] ?? user.filters[service])?.settings);
    if (!parsed.ok) {
      await ctx.reply(`${ctx.t(parsed.problem.key, parsed.problem.vars)}\n\n${ctx.t('filter_usage')}`);
      return;
    }
    const { service, settings, reset, kept, named } = parsed.value;
    const before = rt.scheduler.coverage(user.id);
    const planned = rt.scheduler.coverage(user.id, service);
    const outcome = await saveFilter(rt, user.id, service, settings);
    const parts = [saveOutcomeText(ctx.t, service, outcome, rt.scheduler.coverage(user.id), { now: rt.clock.now(), zone: user.timeZone, lang: ctx.lang })];
    // A draft is the filter that will be written: shown as a saved one is.
    if (outcome.kind === 'saved' || outcome.kind === 'draft') {
      parts.push(describeFilter(service, settings, namesFor(dicts, ctx.lang), ctx.t));
      if (reset) parts.push(ctx.t('filter_oneline_reset', { service }));
      else if (kept) parts.push(named.length > 0 ? ctx.t('filter_oneline_kept', { options: named.join(', '), service }) : ctx.t('filter_oneline_same', { service }));
    }
    const tradeOff = outcome.kind === 'saved' ? coverageTradeOff(before, planned, ctx.t) : undefined;
    if (tradeOff) parts.push(tradeOff);
    const never = outcome.kind === 'saved' ? neverMatches(service, settings, ctx.t, namesFor(dicts, ctx.lang), dicts?.liveBookmakers) : [];
    if (never.length > 0) parts.push(never.join('\n'));
    await ctx.reply(parts.join('\n\n'));
  });

  return composer;
}
