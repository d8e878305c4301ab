/**
 * The alert formatter: one opportunity → a Telegram HTML message (en/ru) with its buttons.
 *
 * Layout, chosen for a phone: the first line says what it is and the headline number (that line
 * is what the push notification shows), then the match, its start, one line per leg, and the
 * maths for the user's bankroll. Every interpolated value is escaped and names are shortened,
 * every HTML tag opens and closes on the same line (the outbox may split long messages between
 * lines), and the result is never longer than Telegram's 4096 characters.
 *
 * The rule of every number: it is derived from the odds shown in the same message, as printed
 * (headline profit, hit and miss, EV from the printed fair odds, stakes, returns, worst case,
 * break-even odds, Kelly), so a user can check any line with a calculator; or, where the odds are
 * hidden, it is the service's figure and labelled as such. The maths therefore run on the odds as
 * they are printed (three decimals at most), not on more digits than the user can see.
 *
 * This file puts a message together and makes it fit; the parts are rooms of their own:
 * `printed.ts` (numbers as printed), `headline-figures.ts` (what the numbers are and what moved),
 * `alert-lines.ts` (headline, event and leg lines), `maths-lines.ts` (stakes, outcomes, EV) and
 * `alert-buttons.ts` (the buttons).
 */
import { clipText, escapeHtml, htmlToText } from '../lib/html.js';
import type { Names } from '../service/dictionaries-model.js';
import type { Opportunity } from '../service/opportunity.js';
import { alertButtons, type AlertButtonRows } from './alert-buttons.js';
import {
  changedLine,
  eventLines,
  headline,
  headlineTitle,
  KIND_ICON,
  legLines,
  NAME_CAPS,
  placedLines,
  SHORT_NAME_CAPS,
  type AlertView,
  type LineContext,
  type NameCaps,
} from './alert-lines.js';
import { alertTexts } from './alert-texts.js';
import { isLiveItem } from './headline-figures.js';
import { mathsLines } from './maths-lines.js';
import { formatDuration, formatStart } from './time.js';
import { SEND_DELAY_MARK } from '../outbox/send-delay.js';

export type { AlertView } from './alert-lines.js';

/** What happened to the item since its alert was sent. */
export type AlertState =
  /** `backAfterMs`: the alert is revived after "Gone" this long ago (one message per arb). */
  | { state: 'new'; backAfterMs?: number }
  | { state: 'moved'; prev: Opportunity }
  | { state: 'gone'; livedMs: number; last: Opportunity };

/** A finished alert: HTML text and inline keyboard rows. */
export interface RenderedAlert {
  /** HTML parse mode, at most 4096 characters. */
  text: string;
  buttons: AlertButtonRows;
}

/** Telegram's limit on a message's text. */
export const TELEGRAM_TEXT_MAX = 4096;

/** An id, tap-to-copy (Telegram copies a <code> span on a tap). */
function idCode(id: string): string {
  return `<code>${escapeHtml(clipText(id, 64))}</code>`;
}

/** Every alert ends with its ids, so the user knows what /item and /event take. */
function idLine(item: Opportunity, t: ReturnType<typeof alertTexts>): string {
  return t.idLine(idCode(item.id), idCode(item.event.id));
}

/** A new alert's last line: the delay from its read to its send, which the outbox fills in (send-delay.ts). */
function sendDelayLines(view: AlertView, t: ReturnType<typeof alertTexts>): string[] {
  return view.foundAt === undefined ? [] : [t.sendDelay(SEND_DELAY_MARK)];
}

/** Joins blocks with one empty line between non-empty blocks. */
function joinBlocks(blocks: string[][]): string {
  return blocks
    .filter((b) => b.length > 0)
    .map((b) => b.join('\n'))
    .join('\n\n');
}

/**
 * Renders with the loosest name limits that fit in 4096 characters; as a last resort drops whole
 * lines from the end (every line is balanced HTML, so the rest stays valid).
 */
function fit(render: (limits: NameCaps) => string): string {
  let text = '';
  for (const limits of NAME_CAPS) {
    text = render(limits);
    if (text.length <= TELEGRAM_TEXT_MAX) return text;
  }
  const lines = text.split('\n');
  while (lines.length > 1 && lines.join('\n').length > TELEGRAM_TEXT_MAX - 2) lines.pop();
  const kept = lines.join('\n');
  return kept.length <= TELEGRAM_TEXT_MAX - 2 ? `${kept}\n…` : '…';
}

function context(item: Opportunity, names: Names, view: AlertView, limits: NameCaps, prev?: Opportunity): LineContext {
  return { item, names, view, t: alertTexts(view.lang), lang: view.lang, limits, prev };
}

/**
 * The alert for one item in one of its states:
 * - 'new': the full alert with stakes and all four buttons;
 * - 'moved': the same, compared with `prev` (changed legs and headline numbers get ▲/▼ and the old
 *   value, plus a "Changed" line), for editing the alert in place;
 * - 'gone': "⛔ Gone after 4 min 10 s" over the last known alert (`state.last`) struck through,
 *   without the stakes and without the stake and snooze buttons (all items of the event and mute stay).
 */
export function formatAlert(item: Opportunity, names: Names, view: AlertView, state: AlertState): RenderedAlert {
  const t = alertTexts(view.lang);
  if (state.state === 'gone') {
    const last = state.last;
    const text = fit((limits) => {
      const ctx = context(last, names, view, limits);
      const strike = (lines: string[]) => lines.map((l) => `<s>${l}</s>`);
      return joinBlocks([
        [`<b>${escapeHtml(t.gone(last.kind, formatDuration(state.livedMs, view.lang)))}</b>`],
        strike([headline(ctx), ...eventLines(ctx)]),
        strike(legLines(ctx, 'none')),
        placedLines(ctx),
        strike([idLine(last, t)]),
      ]);
    });
    return { text, buttons: alertButtons(last, t, 'gone', view.printId) };
  }
  const prev = state.state === 'moved' ? state.prev : undefined;
  const text = fit((limits) => {
    const ctx = context(item, names, view, limits, prev);
    const changed = changedLine(ctx);
    const back = state.state === 'new' && state.backAfterMs !== undefined ? [escapeHtml(t.backAfter(formatDuration(state.backAfterMs, view.lang)))] : [];
    return joinBlocks([
      [headline(ctx), ...back, ...eventLines(ctx), ...(changed ? [changed] : [])],
      [...legLines(ctx, prev ? 'prev' : 'fresh'), t.glossaryHint],
      mathsLines(ctx),
      placedLines(ctx),
      [idLine(item, t), ...(state.state === 'new' ? sendDelayLines(view, t) : [])],
    ]);
  });
  return { text, buttons: alertButtons(item, t, state.state, view.printId) };
}

/**
 * The full card of an item (for /item, /event and inline results): the alert's content with the
 * stakes for `view.bankroll`, plus the item id, its service and how long ago it was found. HTML.
 */
export function formatCard(item: Opportunity, names: Names, view: AlertView): string {
  const t = alertTexts(view.lang);
  return fit((limits) => {
    const ctx = context(item, names, view, limits);
    const found =
      item.createdAt !== undefined && item.createdAt <= view.now
        ? formatDuration(view.now - item.createdAt, view.lang)
        : undefined;
    const footer = t.cardFooter(idCode(item.id), idCode(item.event.id), item.service, found);
    return joinBlocks([[headline(ctx), ...eventLines(ctx)], legLines(ctx, 'service'), mathsLines(ctx), [footer]]);
  });
}

/**
 * One line for lists, digests and quiet-hours summaries: "⚖️ Arb +2.35% · A — B · Sat 3 Jan 12:00".
 * HTML-escaped but without tags, so it is safe inside any HTML message; use `formatShortTitle`
 * where plain text is needed (inline result titles).
 */
export function formatShortLine(item: Opportunity, names: Names, view: AlertView): string {
  const t = alertTexts(view.lang);
  const ctx = context(item, names, view, SHORT_NAME_CAPS);
  const title = `${KIND_ICON[item.kind]} ${headlineTitle(ctx)}`;
  const { event } = item;
  const team1 = clipText(event.team1.trim(), 40);
  const team2 = clipText(event.team2.trim(), 40);
  const teams = team1 && team2 ? `${team1} — ${team2}` : team1 || team2 || clipText(event.league.trim(), 40);
  let when = '';
  if (isLiveItem(item)) when = t.live;
  else if (event.startsAt !== undefined && Number.isFinite(event.startsAt)) {
    when = formatStart(event.startsAt, view.timeZone, view.lang);
  }
  return [title, teams, when]
    .filter((part) => part !== '')
    .map(escapeHtml)
    .join(' · ');
}

/** `formatShortLine` as plain text (no entities), for places that are not parsed as HTML. */
export function formatShortTitle(item: Opportunity, names: Names, view: AlertView): string {
  return htmlToText(formatShortLine(item, names, view));
}
