/**
 * The few texts the outbox writes itself (digest and quiet-hours summary headers), in English
 * and Russian. HTML, like every message the outbox sends.
 */
import { pluralForm } from '../locales/i18n.js';
import type { Lang } from '../store/schema.js';

/** Heads the digest of a burst folded into one message. */
export function digestHeader(lang: Lang, count: number): string {
  return lang === 'ru' ? `<b>+${count} ещё:</b>` : `<b>+${count} more:</b>`;
}

/** Heads the summary sent when quiet hours end. */
export function quietSummaryHeader(lang: Lang, count: number): string {
  if (lang === 'ru') {
    return `🌙 <b>За время тихих часов: ${count} ${pluralForm('ru', count, ['оповещение', 'оповещения', 'оповещений'])}</b>`;
  }
  return `🌙 <b>While quiet hours were on: ${count} ${pluralForm('en', count, ['alert', 'alerts'])}</b>`;
}

/** Says what the quiet-hours summary's marks mean, and what its buttons do. */
export function quietLegend(lang: Lang): string {
  return lang === 'ru'
    ? '🟢 ещё в предложении · ⚪ уже ушло; 🔎 N открывает карточку N'
    : '🟢 still on offer · ⚪ gone since; 🔎 N opens the card of line N';
}

/** Closes a list cut short. */
export function moreLinesLine(lang: Lang, count: number): string {
  return lang === 'ru' ? `… и ещё ${count}` : `… and ${count} more`;
}
