/** The user's settings in words (the /settings menu and its one-line answers). */
import type { Translate } from '../../locales/i18n.js';
import type { UserRecord } from '../../store/schema.js';
import { fmtNum } from './filter-text.js';
import { localClock, zoneWords } from '../parse/time-zone.js';
import { SERVICES, type Service } from '../../service/services.js';
import { DEFAULT_STALE, staleAfterFor, type StaleDefaults } from '../../alerts/loudness.js';
export { staleDefaultsOf } from '../../alerts/loudness.js';
import { formatDuration } from '../../alerts/time.js';

/** One value per service in words: "+3%" when every service has it, else "arbs_live +3% · arbs_prematch every alert". */
function perServiceWords(user: Readonly<UserRecord> | undefined, word: (service: Service) => string): string {
  const words = SERVICES.map((service) => [service, word(service)] as const);
  const first = words[0]![1];
  return words.every(([, w]) => w === first) ? first : words.map(([service, w]) => `${service} ${w}`).join(' · ');
}

/** The lines of how alerts sound: loud threshold, loud again after a rise, stale legs. */
function soundLines(user: Readonly<UserRecord> | undefined, t: Translate, lang: 'en' | 'ru', staleDefaults: StaleDefaults): string[] {
  const loud = (service: Service) => user?.loud[service];
  const from = perServiceWords(user, (s) => {
    const value = loud(s)?.from ?? null;
    return value === null ? t('loud_every') : `+${fmtNum(value)}%`;
  });
  const rise = perServiceWords(user, (s) => t('loud_points', { points: fmtNum(loud(s)?.rise ?? 1) }));
  const stale = staleAfterFor(user ?? { staleLegSeconds: {} }, staleDefaults);
  const mode = t(`stale_mode_${user?.staleMode ?? 'quiet'}`);
  return [
    `${t('set_loud')}: ${t('value', { value: from })}`,
    `${t('set_loud_rise')}: ${t('value', { value: rise })}`,
    `${t('set_stale')}: ${t('stale_desc', { live: formatDuration(stale.liveMs, lang), prematch: formatDuration(stale.prematchMs, lang), mode })}`,
  ];
}

export function describeSettings(user: Readonly<UserRecord> | undefined, t: Translate, fallbackLang: 'en' | 'ru', now: number, staleDefaults: StaleDefaults = DEFAULT_STALE): string {
  const lang = user?.lang ?? fallbackLang;
  const quiet = user?.quietHours;
  const target = user?.alertChatId;
  return [
    `${t('set_lang')}: ${lang === 'ru' ? 'Русский' : 'English'}`,
    `${t('set_tz')}: ${t('value', { value: zoneWords(user?.timeZone ?? 'UTC', now) })}`,
    `${t('set_bankroll')}: ${fmtNum(user?.bankroll ?? 100)}`,
    `${t('set_step')}: ${fmtNum(user?.roundingStep ?? 1)}`,
    `${t('set_quiet')}: ${quiet ? `${quiet.from}–${quiet.to}` : t('off')}`,
    `${t('set_alerts')}: ${target === null || target === undefined ? t('alerts_here') : t('alerts_chat', { id: target })}`,
    ...soundLines(user, t, lang, staleDefaults),
  ].join('\n');
}

/** The zone just saved, said back in words: its name as typed, its offset now and the user's clock now. */
export function zoneSavedText(tz: string, t: Translate, now: number): string {
  return t('tz_saved', { zone: zoneWords(tz, now), time: localClock(tz, now) });
}
