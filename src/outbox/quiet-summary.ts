/**
 * The summary sent when quiet hours end: one line per held alert, numbered, with its item id and
 * whether the item is still on offer (🟢) or gone (⚪) by its owner's latest read, and a button per
 * item still there that opens its card. Whether an item is still there is known only when the
 * summary goes (hours after it was held), so the text is written in the summary's turn
 * (`beforeFirstSend`), like a digest's. One message: Telegram's 4096 characters and 100 buttons
 * bound it, and what does not fit is counted in "… and N more".
 */
import { escapeHtml } from '../lib/html.js';
import type { SchedulerPort } from '../scheduler/port.js';
import type { Lang } from '../store/schema.js';
import { moreLinesLine, quietLegend, quietSummaryHeader } from './digest-text.js';
import type { SendJob } from './jobs.js';
import type { HeldAliveCheck, HeldItem, OutboxButton, OutboxButtons } from './port.js';
import { TELEGRAM_TEXT_LIMIT } from './split.js';

/** Telegram's most buttons under one message. */
export const MAX_BUTTONS = 100;
const BUTTONS_PER_ROW = 5;
/** Room kept for the "… and N more" line. */
const MORE_RESERVE = 40;

export interface SummaryInput {
  lang: Lang;
  /** Alerts held in all (more than the lines kept, past `maxLines`). */
  count: number;
  /** The held alerts' lines, with their items where known, in the order held. */
  lines: readonly { line: string; item?: HeldItem }[];
}

/** The summary's text and buttons; `alive[i]` says whether line i's item is still there (undefined: not known). */
export function renderSummary(input: SummaryInput, maxLines: number, alive: readonly (boolean | undefined)[] = []): { text: string; buttons: OutboxButtons } {
  const { lang, count, lines } = input;
  const head = [quietSummaryHeader(lang, count)];
  if (alive.some((a) => a !== undefined)) head.push(quietLegend(lang));
  let text = head.join('\n');
  const buttons: OutboxButton[] = [];
  let shown = 0;
  for (const [i, { line, item }] of lines.slice(0, maxLines).entries()) {
    const mark = alive[i] === true ? '🟢 ' : alive[i] === false ? '⚪ ' : '';
    const id = item ? ` · <code>${escapeHtml(item.id)}</code>` : '';
    const next = `\n${i + 1}. ${mark}${line}${id}`;
    const opens = item?.openData !== undefined && alive[i] !== false;
    if (text.length + next.length > TELEGRAM_TEXT_LIMIT - MORE_RESERVE || (opens && buttons.length >= MAX_BUTTONS)) break;
    text += next;
    shown += 1;
    if (opens && item?.openData !== undefined) buttons.push({ text: `🔎 ${i + 1}`, callbackData: item.openData });
  }
  if (count > shown) text += `\n${moreLinesLine(lang, count - shown)}`;
  const rows: OutboxButtons = [];
  for (let i = 0; i < buttons.length; i += BUTTONS_PER_ROW) rows.push(buttons.slice(i, i + BUTTONS_PER_ROW));
  return { text, buttons: rows };
}

/**
 * The summary's job (made by `makeJob`, its text written without marks for now), which writes its
 * text and buttons again in its turn, with the marks `alive` gives then. Never refuses to go: a
 * check that fails leaves the lines unmarked.
 */
export function summaryJob(input: SummaryInput, maxLines: number, makeJob: (text: string) => SendJob, alive?: HeldAliveCheck): SendJob {
  const first = renderSummary(input, maxLines);
  const job = makeJob(first.text);
  job.buttons = first.buttons.length > 0 ? first.buttons : undefined;
  const items = input.lines.slice(0, maxLines).map((l) => l.item);
  const known = items.filter((i): i is HeldItem => i !== undefined);
  if (!alive || known.length === 0) return job;
  job.beforeFirstSend = async () => {
    let marks: (boolean | undefined)[] = [];
    try {
      const answers = await alive(known);
      let k = 0;
      marks = items.map((i) => (i === undefined ? undefined : answers[k++]));
    } catch {
      // Unmarked lines, but the summary still goes.
    }
    const written = renderSummary(input, maxLines, marks);
    job.parts = [written.text];
    job.buttons = written.buttons.length > 0 ? written.buttons : undefined;
    return true;
  };
  return job;
}

/**
 * The check against the scheduler's latest reads: an item is still there when its owner's latest
 * read of its service holds it. One ask per owner; an owner whose read cannot be had (a worker
 * out of reach) leaves their lines unmarked.
 */
export function latestReadCheck(scheduler: Pick<SchedulerPort, 'latestItems'>): HeldAliveCheck {
  return async (items) => {
    const owners = new Map<number, Promise<Set<string> | undefined>>();
    const held = (userId: number) => {
      let read = owners.get(userId);
      if (!read) {
        read = Promise.resolve()
          .then(() => scheduler.latestItems(userId))
          .then((latest) => new Set(latest.map((o) => `${o.service}:${o.id}`)))
          .catch(() => undefined);
        owners.set(userId, read);
      }
      return read;
    };
    return Promise.all(items.map(async (item) => (await held(item.userId))?.has(`${item.service}:${item.id}`)));
  };
}
