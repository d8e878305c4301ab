/**
 * Inline mode: `@bot <item id or words>` answers with cards from the user's latest items. The
 * answer is personal (another user never sees these results) and cached only briefly.
 */
import { createHash } from 'node:crypto';
import { Composer } from 'grammy';
import type { InlineQueryResultArticle } from 'grammy/types';
import { formatCard, formatShortTitle } from '../../alerts/format.js';
import { placedButtons } from '../../alerts/alert-buttons.js';
import { alertTexts } from '../../alerts/alert-texts.js';
import { keepPrint } from '../ui/cards.js';
import type { Names } from '../../service/dictionaries-model.js';
import type { Opportunity } from '../../service/opportunity.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { freshness, namesForLang, viewFor } from '../ui/cards.js';
import { clipText } from '../../lib/html.js';
import { serviceLabel } from '../../locales/services.js';
import { waitWords } from '../ui/time-words.js';

export const INLINE_CACHE_SECONDS = 5;
export const INLINE_MAX_RESULTS = 20;

function searchText(item: Opportunity, names: Names): string {
  const { event } = item;
  const legs = item.legs.map((l) => names.bookmaker(l.bookmakerId));
  return [item.id, event.id, event.team1, event.team2, event.league, names.sport(event.sportId), ...legs].join(' ').toLowerCase();
}

/** Items matching the query: an exact id first, else every word somewhere in the item's names. */
export function matchItems(items: Opportunity[], query: string, names: Names): Opportunity[] {
  const q = query.trim().toLowerCase();
  if (q === '') return items;
  const exact = items.filter((o) => o.id.toLowerCase() === q || o.event.id.toLowerCase() === q);
  if (exact.length > 0) return exact;
  const words = q.split(/\s+/).filter(Boolean);
  return items.filter((o) => {
    const hay = searchText(o, names);
    return words.every((w) => hay.includes(w));
  });
}

/** Result ids must be ≤ 64 bytes: long item ids are hashed. */
function resultId(item: Opportunity): string {
  const raw = `${item.service}:${item.id}`;
  return Buffer.byteLength(raw) <= 64 ? raw : createHash('sha256').update(raw).digest('hex').slice(0, 32);
}

function headline(item: Opportunity): number {
  return item.kind === 'valuebets' ? (item.overvalue ?? -Infinity) : (item.profit ?? -Infinity);
}

export function inlineFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.on('inline_query', async (ctx) => {
    const user = ctx.user;
    const personal = { cache_time: INLINE_CACHE_SECONDS, is_personal: true } as const;
    if (!user?.key) {
      await ctx.answerInlineQuery([], { ...personal, button: { text: ctx.tp('inline_connect'), start_parameter: 'connect' } });
      return;
    }
    const waitMs = await rt.caps.take('inline', user.id, user.key.accessKey);
    if (waitMs > 0) {
      await ctx.answerInlineQuery([], { ...personal, button: { text: clipText(ctx.tp('cap_inline', { wait: waitWords(waitMs, ctx.t) }), 64), start_parameter: 'help' } });
      return;
    }
    const query = ctx.inlineQuery.query.slice(0, 200);
    const names = await namesForLang(rt, ctx.lang);
    const view = viewFor(user, ctx.lang, rt.clock.now(), undefined, freshness(rt, user));
    const items = matchItems(await rt.scheduler.latestItems(user.id), query, names)
      .sort((a, b) => headline(b) - headline(a))
      .slice(0, INLINE_MAX_RESULTS);
    const results: InlineQueryResultArticle[] = [];
    const t = alertTexts(ctx.lang);
    for (const item of items) {
      // One item the formatter cannot draw costs only its own card, never the whole answer.
      try {
        // The card's ✅ / ✏️ record what it prints, wherever it is sent (the print is the user's own).
        const printId = keepPrint(rt, ctx, item, names, view);
        const placed = printId === undefined ? [] : placedButtons(item, t, printId);
        results.push({
          type: 'article',
          id: resultId(item),
          title: clipText(formatShortTitle(item, names, view), 120),
          description: clipText(`${serviceLabel(item.service, ctx.t)} · ${names.sport(item.event.sportId)} · ${item.event.league}`, 200),
          input_message_content: { message_text: formatCard(item, names, view), parse_mode: 'HTML', link_preview_options: { is_disabled: true } },
          ...(placed.length > 0 ? { reply_markup: { inline_keyboard: [placed.map((b) => ({ text: b.text, callback_data: b.callbackData }))] } } : {}),
        });
      } catch (err) {
        rt.logger.warn({ err, itemId: item.id, service: item.service }, 'an item could not be drawn as an inline result; left out');
      }
    }
    const button = results.length === 0 ? { button: { text: ctx.tp('inline_nothing'), start_parameter: 'help' } } : {};
    await ctx.answerInlineQuery(results, { ...personal, ...button });
  });

  return composer;
}
