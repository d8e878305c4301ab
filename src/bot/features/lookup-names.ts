/**
 * /item or /event followed by a name rather than an id ("/event Chelsea"): the ids the service
 * issues carry digits (hex item ids, numeric event ids), so letters alone are a name. A name is
 * searched in the teams and leagues of the user's current opportunities (the scheduler's latest
 * list) and answered with their events and ids; the service is not asked and no lookup is spent,
 * since it has no search by name and asking it for "Chelsea" as an id only ever said "not found".
 */
import type { Opportunity } from '../../service/opportunity.js';
import { clipText } from '../../lib/html.js';
import { escapeHtml } from '../../lib/html.js';
import { html } from '../../locales/i18n.js';
import type { Service } from '../../service/services.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { clipEcho } from '../parse/values.js';

/** Events listed in one answer (the rest are counted). */
export const MAX_NAME_EVENTS = 8;
/** Item ids listed per event line. */
const MAX_IDS_PER_EVENT = 3;

// A letter first, then letters, digits, spaces and the marks names carry ("St. Pauli", "Brighton & Hove").
const NAME = /^\p{L}[\p{L}\p{M}\p{N}\s.'’&()-]*$/u;

/** True for words to search as a name: the first word has no digit, and the text is name-like. */
export function isNameQuery(text: string): boolean {
  const trimmed = text.trim();
  const first = trimmed.split(/\s+/)[0] ?? '';
  return trimmed.length > 0 && trimmed.length <= 100 && !/\d/.test(first) && NAME.test(trimmed);
}

/** Opportunities whose teams or league hold every word of the query (case-insensitive). */
export function matchByNames(items: readonly Opportunity[], query: string): Opportunity[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return items.filter((o) => {
    const hay = `${o.event.team1} ${o.event.team2} ${o.event.league}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** The query as an answer quotes it: each word by the echo rule (a long word may be a pasted secret). */
function quoted(query: string): string {
  return query.trim().split(/\s+/).map(clipEcho).join(' ');
}

/** Answers a name query from the user's latest items, optionally of one service. */
export async function answerNameQuery(rt: BotRuntime, ctx: BotContext, query: string, service: Service | undefined): Promise<void> {
  const t = ctx.t;
  const user = ctx.user;
  if (!user?.key) {
    await ctx.reply(t('need_key'));
    return;
  }
  const latest = await rt.scheduler.latestItems(user.id, service);
  const hits = matchByNames(latest, query);
  if (hits.length === 0) {
    await ctx.reply(t('lookup_names_none', { query: quoted(query) }));
    return;
  }
  const events = new Map<string, Opportunity[]>();
  for (const item of hits) events.set(item.event.id, [...(events.get(item.event.id) ?? []), item]);
  const lines = [...events.values()].slice(0, MAX_NAME_EVENTS).map((items) => {
    const { event } = items[0]!;
    const ids = items.slice(0, MAX_IDS_PER_EVENT).map((o) => `<code>${escapeHtml(clipText(o.id, 100))}</code>`);
    if (items.length > MAX_IDS_PER_EVENT) ids.push(t('and_more', { n: items.length - MAX_IDS_PER_EVENT }));
    return t('lookup_names_line', {
      teams: `${clipText(event.team1, 64)} — ${clipText(event.team2, 64)}`,
      league: clipText(event.league, 64),
      event: clipText(event.id, 100),
      ids: html(ids.join(', ')),
    });
  });
  const more = events.size - MAX_NAME_EVENTS;
  const text = [
    t('lookup_names_found', { query: quoted(query), n: events.size }),
    ...lines,
    ...(more > 0 ? [t('lookup_names_more', { n: more })] : []),
    t('lookup_names_hint'),
  ].join('\n');
  await ctx.reply(text, { link_preview_options: { is_disabled: true } });
}
