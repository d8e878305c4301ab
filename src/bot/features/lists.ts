/**
 * /sports and /bookmakers: the dictionaries' names with their ids, so the one-line /filter can
 * name them (`sports=football` or `sports=1`). `/bookmakers bet` lists only the matching names.
 * Long lists go in several messages, each under Telegram's limit.
 */
import { Composer } from 'grammy';
import { escapeHtml } from '../../lib/html.js';
import type { Dictionaries } from '../../service/dictionaries-model.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { nameKey } from '../parse/dict-names.js';
import { clipEcho } from '../parse/values.js';
import { dictionariesFor } from '../ui/cards.js';
import { clipName, plainLength } from '../ui/plain.js';

/** A message of the list stays well under Telegram's 4096 characters. */
const CHUNK_MAX = 3500;

/** The lines of a list, cut into messages of at most CHUNK_MAX characters. */
export function chunkLines(header: string, lines: string[]): string[] {
  const chunks: string[] = [];
  let current = header;
  for (const line of lines) {
    if (plainLength(current) + plainLength(line) + 1 > CHUNK_MAX) {
      chunks.push(current);
      current = line;
    } else {
      current = current === '' ? line : `${current}\n${line}`;
    }
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

function entries(map: Record<string, string>, lang: string): [number, string][] {
  return Object.entries(map)
    .map(([id, name]): [number, string] => [Number(id), name])
    .filter(([id]) => Number.isSafeInteger(id) && id >= 0)
    .sort((a, b) => a[1].localeCompare(b[1], lang));
}

export function listsFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  const send = (what: 'sports' | 'bookmakers') => async (ctx: BotContext & { match: string }) => {
    const dicts: Dictionaries | undefined = await dictionariesFor(rt, ctx.lang);
    const map = dicts?.[what];
    if (!dicts || !map || Object.keys(map).length === 0) {
      await ctx.reply(ctx.t('lists_unavailable'));
      return;
    }
    const words = ctx.match.trim().slice(0, 100);
    const query = nameKey(words);
    const live = new Set(dicts.liveBookmakers);
    const shown = entries(map, ctx.lang).filter(([, name]) => query === '' || nameKey(name).includes(query));
    if (shown.length === 0) {
      await ctx.reply(ctx.t('list_no_match', { value: clipEcho(words) }));
      return;
    }
    const lines = shown.map(([id, name]) => {
      const mark = what === 'bookmakers' && live.has(id) ? ' 🔴' : '';
      return `${escapeHtml(clipName(name))} — <code>${id}</code>${mark}`;
    });
    const header = [ctx.t(what === 'sports' ? 'list_sports_title' : 'list_bookmakers_title')];
    if (what === 'bookmakers' && live.size > 0) header.push(ctx.t('list_live_mark'));
    for (const chunk of chunkLines(header.join('\n'), lines)) await ctx.reply(chunk);
  };

  composer.command('sports', send('sports'));
  composer.command('bookmakers', send('bookmakers'));
  return composer;
}
