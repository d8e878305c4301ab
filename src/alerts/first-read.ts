/**
 * The first read after a filter is saved or resumed (or the bot restarted) may find many items at
 * once: the trial's "from 0 %" live filter buzzed 11 times in a second. From SUMMARY_FROM new items
 * on, that read sends one message instead — how many are open, the best figure, one line per item
 * (best first) and a numbered button per item that opens its card with stakes (the 🔎 action of
 * the quiet-hours summary). One or two new items still come as alerts of their own: a
 * summary of two would only add a tap. Items summarised keep their alert entries (no message), so
 * they are never alerted later as new, and what appears after this read is alerted one by one.
 */
import { translator, html } from '../locales/i18n.js';
import { serviceName } from '../locales/services.js';
import type { Names } from '../service/dictionaries-model.js';
import type { Opportunity } from '../service/opportunity.js';
import type { Service } from '../service/services.js';
import { alertTexts } from './alert-texts.js';
import { encodeAlertAction } from './callbacks.js';
import { formatShortLine, type AlertView } from './format.js';
import { metrics } from './headline-figures.js';
import { fmtPct } from './printed.js';

/** From this many new items in a first read, one summary instead of an alert each. */
export const SUMMARY_FROM = 3;
/** Lines (and buttons) the summary lists; the rest are counted. */
export const SUMMARY_LINES = 10;

export interface FirstReadSummary {
  text: string;
  buttons: { text: string; callbackData: string }[][];
}

/** The summary of `items` (at least one) for the user's view. */
export function firstReadSummary(items: readonly Opportunity[], service: Service, names: Names, view: AlertView): FirstReadSummary {
  const t = alertTexts(view.lang);
  const scored = items.map((item) => ({ item, value: metrics(item, t, { names, books: view.books }).values[0]?.value }));
  scored.sort((a, b) => (b.value ?? -Infinity) - (a.value ?? -Infinity));
  const shown = scored.slice(0, SUMMARY_LINES);
  const tr = translator(view.lang);
  const lines = shown.map(({ item }, i) => `${i + 1}) ${formatShortLine(item, names, view)}`);
  const more = items.length - shown.length;
  if (more > 0) lines.push(tr('alert_first_summary_more', { n: more }));
  const best = scored[0]?.value;
  const text = tr('alert_first_summary', {
    n: items.length,
    service: serviceName(service, view.lang),
    best: best === undefined ? '—' : fmtPct(best),
    lines: html(lines.join('\n')),
  });
  const buttons: FirstReadSummary['buttons'] = [];
  shown.forEach(({ item }, i) => {
    const data = encodeAlertAction({ type: 'open', service, itemId: item.id });
    if (data === undefined) return;
    const row = buttons[buttons.length - 1];
    const button = { text: `${i + 1}`, callbackData: data };
    // Five numbers a row: thumb-sized on a phone.
    if (row && row.length < 5) row.push(button);
    else buttons.push([button]);
  });
  const all = encodeAlertAction({ type: 'openAll', service });
  if (all !== undefined && shown.length > 1) buttons.push([{ text: tr('btn_first_summary_all', { n: shown.length }), callbackData: all }]);
  return { text, buttons };
}
