/**
 * The few texts the outbox writes itself (digest and quiet-hours summary headers), in English
 * and Russian. HTML, like every message the outbox sends.
 */
import type { Lang } from '../store/schema.js';

/** Russian plural form for `n`: one (1, 21…), few (2–4, 22–24…), many (the rest). */
export function ruPlural(n: number, one: string, few: string, many: string): string {
  const mod10 = n % 10;
  const mod100 = n % 100;
  if (mod10 === 1 && mod100 !== 11) return one;
  if (mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)) return few;
  return many;
}

/** Heads the digest of a burst folded into one message. */
export function digestHeader(lang: Lang, count: number): string {
  return lang === 'ru' ? `<b>+${count} ещё:</b>` : `<b>+${count} more:</b>`;
}

/** Heads the summary sent when quiet hours end. */
export function quietSummaryHeader(lang: Lang, count: number): string {
  if (lang === 'ru') {
    return `🌙 <b>За время тихих часов: ${count} ${ruPlural(count, 'оповещение', 'оповещения', 'оповещений')}</b>`;
  }
  return `🌙 <b>While quiet hours were on: ${count} ${count === 1 ? 'alert' : 'alerts'}</b>`;
}

/** Closes a list cut short. */
export function moreLinesLine(lang: Lang, count: number): string {
  return lang === 'ru' ? `… и ещё ${count}` : `… and ${count} more`;
}
