/** The user's settings in words (the /settings menu and its one-line answers). */
import type { Translate } from '../../locales/i18n.js';
import type { UserRecord } from '../../store/schema.js';
import { fmtNum } from './filter-text.js';
import { localClock, zoneWords } from '../parse/time-zone.js';

export function describeSettings(user: Readonly<UserRecord> | undefined, t: Translate, fallbackLang: 'en' | 'ru', now: number): string {
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
  ].join('\n');
}

/** The zone just saved, said back in words: its name as typed, its offset now and the user's clock now. */
export function zoneSavedText(tz: string, t: Translate, now: number): string {
  return t('tz_saved', { zone: zoneWords(tz, now), time: localClock(tz, now) });
}
