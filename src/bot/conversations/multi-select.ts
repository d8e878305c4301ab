/**
 * A paged multi-select inside a conversation (sports, bookmakers): 8 options a page, toggles,
 * "All", "Done", and a search by typed name (a part of it: "bask" finds Basketball; a near miss is
 * offered as "did you mean"). Typed ids ("1,5,6") and exact names ("football, tennis") select too.
 */
import type { InlineKeyboardButton } from 'grammy/types';
import { escapeHtml } from '../../lib/html.js';
import type { Translate } from '../../locales/i18n.js';
import type { ConvContext } from '../context.js';
import { matchName, nameKey } from '../parse/dict-names.js';
import { clipEcho } from '../parse/values.js';
import { clipName } from '../ui/plain.js';
import { btn, closePrompt, editPrompt, keyboard, sendPrompt, waitAnswer, type Convo } from './prompt.js';

export const PAGE_SIZE = 8;

export interface MultiSelectOptions {
  /** The question above the list (HTML, escaped). */
  title: string;
  /** [id, name] in display order. */
  options: [number, string][];
  /** Ids selected at the start (editing a filter). */
  selected: number[];
  /** Label of the "all" button ("All sports"). */
  allLabel: string;
  /** Other names of the options (id → English name), read as the shown ones are: the service's own names work in any language. */
  aliases?: Readonly<Record<string, string>>;
}

function pageOf(options: [number, string][], page: number): [number, string][] {
  return options.slice(page * PAGE_SIZE, page * PAGE_SIZE + PAGE_SIZE);
}

function render(t: Translate, o: MultiSelectOptions, shown: [number, string][], page: number, selected: Set<number>, query: string) {
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const names = o.options.filter(([id]) => selected.has(id)).map(([, name]) => escapeHtml(clipName(name)));
  const lines = [o.title];
  lines.push(selected.size === 0 ? t('ms_none_selected', { all: o.allLabel }) : t('ms_selected', { list: names.slice(0, 12).join(', '), n: selected.size }));
  if (query !== '') lines.push(t('ms_search', { query }));
  lines.push(t('ms_search_hint'));
  const rows: InlineKeyboardButton[][] = [];
  const items = pageOf(shown, page);
  for (let i = 0; i < items.length; i += 2) {
    rows.push(items.slice(i, i + 2).map(([id, name]) => btn(`${selected.has(id) ? '✅ ' : ''}${clipName(name)}`, { type: 'toggle', id })));
  }
  if (pages > 1) {
    rows.push([
      btn('‹', { type: 'page', page: (page + pages - 1) % pages }),
      btn(`${page + 1}/${pages}`, { type: 'noop' }),
      btn('›', { type: 'page', page: (page + 1) % pages }),
    ]);
  }
  const last = [btn(o.allLabel, { type: 'all' }), btn(t('btn_done'), { type: 'done' })];
  if (query !== '') last.unshift(btn(t('btn_clear_search'), { type: 'clear' }));
  rows.push(last);
  return { text: lines.join('\n'), markup: keyboard(rows) };
}

/**
 * The ids of a typed list of names ("football, tennis"), when every name is one of the options
 * exactly (case and spaces aside; in `lists`); undefined otherwise, so the text is read as ids or a search.
 */
function namedIds(text: string, lists: Readonly<Record<string, string>>[], known: Set<number>): number[] | undefined {
  if (text.length > 400 || !/\p{L}/u.test(text)) return undefined;
  const ids: number[] = [];
  for (const word of text.split(',').map((w) => w.trim())) {
    const match = word === '' ? undefined : matchName(word, lists);
    if (!match?.ok || !known.has(match.id)) return undefined;
    ids.push(match.id);
  }
  return ids;
}

/** Runs the multi-select; resolves with the chosen ids ([] = all). */
export async function multiSelect(conversation: Convo, ctx: ConvContext, t: Translate, o: MultiSelectOptions): Promise<number[]> {
  const known = new Set(o.options.map(([id]) => id));
  const aliases = o.aliases ?? {};
  const lists = [Object.fromEntries(o.options.map(([id, name]) => [String(id), name])), aliases];
  const selected = new Set(o.selected.filter((id) => known.has(id)));
  let query = '';
  let shown = o.options;
  let page = 0;
  let view = render(t, o, shown, page, selected, query);
  let promptId = await sendPrompt(ctx, view.text, view.markup);

  for (;;) {
    const answer = await waitAnswer(conversation, t, promptId);
    if (answer.kind === 'button') {
      const b = answer.button;
      if (b.type === 'done') break;
      if (b.type === 'all') {
        // The closed prompt must read what was chosen: redraw it ("Nothing selected: All sports") without buttons.
        selected.clear();
        await editPrompt(answer.ctx, promptId, `${o.title}\n${t('ms_none_selected', { all: o.allLabel })}`, keyboard([]));
        return [];
      }
      if (b.type === 'toggle' && known.has(b.id)) {
        if (selected.has(b.id)) selected.delete(b.id);
        else selected.add(b.id);
      } else if (b.type === 'page') {
        page = Math.min(b.page, Math.max(0, Math.ceil(shown.length / PAGE_SIZE) - 1));
      } else if (b.type === 'clear') {
        query = '';
        shown = o.options;
        page = 0;
      } else {
        continue;
      }
      view = render(t, o, shown, page, selected, query);
      await editPrompt(answer.ctx, promptId, view.text, view.markup);
      continue;
    }

    const text = answer.text.trim();
    const named = namedIds(text, lists, known);
    if (named) {
      for (const id of named) selected.add(id);
    } else if (/^\d+(\s*,\s*\d+)*$/.test(text)) {
      const ids = text.split(',').map((s) => Number(s.trim()));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length > 0) {
        await answer.ctx.reply(t('ms_unknown_ids', { ids: unknown.slice(0, 10).join(', ') }));
        continue;
      }
      for (const id of ids) selected.add(id);
    } else {
      const needle = nameKey(text);
      let found = needle === '' ? [] : o.options.filter(([id, name]) => [name, aliases[String(id)] ?? ''].some((n) => nameKey(n).includes(needle)));
      if (found.length === 0) {
        // A typo ("tenis", "Pinacle") is offered its near names, as /filter's one line and /book do, shown as the search's buttons.
        const near = matchName(text, lists);
        const guesses = new Set(near.ok ? [] : near.suggestions);
        found = o.options.filter(([id, name]) => guesses.has(name) || guesses.has(aliases[String(id)] ?? ''));
        if (found.length === 0) {
          await answer.ctx.reply(t('ms_no_match', { query: clipEcho(text) }));
          continue;
        }
        await answer.ctx.reply(t('ms_no_match_guess', { query: clipEcho(text), list: found.map(([, name]) => clipName(name)).join(', ') }));
      }
      query = clipEcho(text);
      shown = found;
      page = 0;
    }
    // The answer was typed: show the list again below it and retire the old one.
    await closePrompt(answer.ctx, promptId);
    view = render(t, o, shown, page, selected, query);
    promptId = await sendPrompt(answer.ctx, view.text, view.markup);
  }
  await closePrompt(ctx, promptId);
  return o.options.filter(([id]) => selected.has(id)).map(([id]) => id);
}
