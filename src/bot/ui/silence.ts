/**
 * Why a service has sent no alert for an hour, for /status: the first reason that holds, from
 * the filter itself (paused, can never match) through the reads to "nothing new matched". A user
 * who sees silence must never have to guess whether the bot is broken.
 */
import { isQuietNow } from '../../alerts/time.js';
import { html, type Translate } from '../../locales/i18n.js';
import type { ServiceCoverage } from '../../scheduler/port.js';
import type { Names } from '../../service/dictionaries-model.js';
import type { Service } from '../../service/services.js';
import type { UserRecord } from '../../store/schema.js';
import { errorInWords } from './filter-text.js';
import { neverMatches } from './filter-warnings.js';

/** Silence shorter than this is normal and not explained. */
export const SILENCE_MS = 60 * 60_000;

/** The lines explaining the silence of `service`, or none when it alerted within the hour. */
export function silenceLines(
  user: Readonly<UserRecord>,
  service: Service,
  coverage: ServiceCoverage | undefined,
  now: number,
  t: Translate,
  names: Names,
  liveBookmakers: readonly number[] | undefined,
): string[] {
  const record = user.filters[service];
  if (!record) return [];
  const status = user.status[service];
  const since = Math.max(status?.lastAlertAt ?? 0, record.savedAt);
  if (now - since < SILENCE_MS) return [];
  const why = (text: string) => [t('status_silent', { why: html(text) })];
  // A pause for another reason (a refused key, no access) is already said on the state line.
  if (record.paused) return record.pausedReason === 'user' ? why(t('why_paused')) : [];
  const never = neverMatches(service, record.settings, t, names, liveBookmakers);
  if (never.length > 0) return [t('status_silent_never'), ...never];
  const snoozed = user.snoozedUntil[service];
  if (snoozed !== undefined && snoozed > now) return why(t('why_snoozed'));
  if (!coverage || coverage.state !== 'active') return why(t('why_not_polled'));
  const lastRead = status?.lastGoodReadAt ?? null;
  const err = status?.lastError;
  if (err && err.at > (lastRead ?? 0)) return why(t('why_errors', { error: html(errorInWords(err.kind, t)) }));
  if (lastRead === null || now - lastRead > SILENCE_MS) return why(t('why_no_reads'));
  const quiet = user.quietHours;
  if (quiet && isQuietNow(quiet, user.timeZone, now)) return why(t('why_quiet', { from: quiet.from, to: quiet.to }));
  return why(t('why_nothing_new'));
}
