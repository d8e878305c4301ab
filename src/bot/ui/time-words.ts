/** Times in /status: a clock time in the user's zone and how long ago it was. */
import { formatStart } from '../../alerts/time.js';
import type { Lang, Translate } from '../../locales/i18n.js';

/** "Sat 3 Jan 12:05" in the user's time zone (UTC when the zone is not usable), as alerts write it. */
export function formatClockTime(ms: number, timeZone: string, lang: Lang): string {
  return formatStart(ms, timeZone, lang);
}

/** "just now", "5 min ago", "2 h ago", "3 d ago" (and the Russian forms). */
export function formatAgo(ms: number, now: number, t: Translate): string {
  const diff = Math.max(0, now - ms);
  const minutes = Math.floor(diff / 60_000);
  if (minutes < 1) return t('ago_now');
  if (minutes < 60) return t('ago_min', { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return t('ago_h', { n: hours });
  return t('ago_d', { n: Math.floor(hours / 24) });
}

/** How long to wait, rounded up: "40 seconds", "3 minutes" (and the Russian forms). */
export function waitWords(ms: number, t: Translate): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 60) return t('wait_s', { n: seconds });
  return t('wait_min', { n: Math.ceil(seconds / 60) });
}

/** "Sat 3 Jan 12:05 (5 min ago)", or "—" when it never happened. */
export function formatWhen(ms: number | null | undefined, now: number, timeZone: string, lang: Lang, t: Translate): string {
  if (ms === null || ms === undefined) return t('never');
  return `${formatClockTime(ms, timeZone, lang)} (${formatAgo(ms, now, t)})`;
}
