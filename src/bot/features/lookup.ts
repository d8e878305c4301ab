/** /item <item_id> [service] and /event <event_id> [service]: full cards from the service or the latest list. */
import type { AlertView } from '../../alerts/format.js';
import { Composer } from 'grammy';
import { formatCard } from '../../alerts/format.js';
import { html } from '../../locales/i18n.js';
import { parseService, type Service } from '../../service/services.js';
import { lookup, type LookupRequest, type LookupResult } from '../actions/lookup.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { clipEcho, parseId } from '../parse/values.js';
import { namesForLang, viewFor } from '../ui/cards.js';
import { errorInWords } from '../ui/filter-text.js';
import { quietly } from '../ui/quietly.js';
import { waitWords } from '../ui/time-words.js';

/** At most this many cards answer one lookup (the rest are counted). */
export const MAX_CARDS = 5;

/** Sends the answer to a lookup: the cards, or why there are none. */
export async function sendLookupResult(
  rt: BotRuntime,
  ctx: BotContext,
  req: LookupRequest,
  result: LookupResult,
  bankroll?: number,
  /** Legs fixed at what a bookmaker accepted ("✏️ Leg limited"), or all profit on one leg: how to stake this answer. */
  staking?: Pick<AlertView, 'fixedLegs' | 'profitOn'>,
): Promise<void> {
  const t = ctx.t;
  switch (result.kind) {
    case 'no_key':
      await ctx.reply(t('need_key'));
      return;
    case 'capped':
      await ctx.reply(t('cap_lookup', { wait: waitWords(result.waitMs, t) }));
      return;
    case 'need_service':
      await ctx.reply(t('lookup_need_service'));
      return;
    case 'not_found': {
      const base = t(req.what === 'item' ? 'item_not_found' : 'event_not_found', { id: clipEcho(req.id) });
      const why = result.reason === 'not_found' ? '' : `\n${t('lookup_reason', { reason: html(errorInWords(result.reason, t)) })}`;
      await ctx.reply(`${base}${why}`);
      return;
    }
    case 'found': {
      const names = await namesForLang(rt, ctx.lang);
      const view: AlertView = { ...viewFor(ctx.user, ctx.lang, rt.clock.now(), bankroll), ...staking };
      const notes: string[] = [];
      if (req.what === 'event') notes.push(t('event_items', { id: req.id, n: result.items.length }));
      if (result.source === 'latest') notes.push(t('from_latest'));
      if (result.items.length > MAX_CARDS) notes.push(t('more_items', { n: result.items.length - MAX_CARDS }));
      if (notes.length > 0) await ctx.reply(notes.join('\n'));
      let unshown = 0;
      for (const item of result.items.slice(0, MAX_CARDS)) {
        // One item the formatter cannot draw costs only its own card.
        let card: string;
        try {
          card = formatCard(item, names, view);
        } catch (err) {
          rt.logger.warn({ err, itemId: item.id, service: item.service }, 'an item could not be drawn as a card; left out');
          unshown += 1;
          continue;
        }
        await ctx.reply(card, { link_preview_options: { is_disabled: true } });
      }
      if (unshown > 0) await ctx.reply(t('lookup_unshowable', { n: unshown }));
    }
  }
}

export function lookupFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  const handle = (what: 'item' | 'event') => async (ctx: BotContext & { match: string }) => {
    const args = ctx.match.trim().split(/\s+/).filter(Boolean);
    const usage = ctx.t(what === 'item' ? 'item_usage' : 'event_usage');
    if (args.length === 0 || args.length > 2) {
      await ctx.reply(usage);
      return;
    }
    const id = parseId(args[0] ?? '');
    if (!id.ok) {
      await ctx.reply(`${ctx.t(id.problem.key, id.problem.vars)}\n\n${usage}`);
      return;
    }
    let service: Service | undefined;
    if (args[1] !== undefined) {
      service = parseService(args[1]);
      if (!service) {
        await ctx.reply(ctx.t('unknown_service', { value: clipEcho(args[1]) }));
        return;
      }
    }
    await quietly(ctx.log, 'showing "typing"', () => ctx.replyWithChatAction('typing'));
    const req: LookupRequest = { what, id: id.value, service };
    await sendLookupResult(rt, ctx, req, await lookup(rt, ctx.user, req));
  };

  composer.command('item', handle('item'));
  composer.command('event', handle('event'));
  return composer;
}
