/**
 * Messages of one area (lookups-help), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const lookupsHelpEn = {
  // A lookup some services answered ("no such id") while others could not be asked: both are said.
  lookup_partly:
    '🔎 Not found in {searched}. I could not look in {unasked} now: {reason}. For {unasked_n#that service|those services} that is not “not found”: try again in a minute.',
  lookup_partly_wait:
    '🔎 Not found in {searched}. I could not look in {unasked} now: {reason}; the limit frees in {wait}. For {unasked_n#that service|those services} that is not “not found”: try again then.',
  // /item or /event followed by words that are not an id: searched in the user's current opportunities.
  lookup_names_found:
    '🔎 “{query}” is not an id, so I searched the teams and leagues of your current opportunities: {n} {n#event|events}.',
  lookup_names_line: '• {teams} ({league}): /event <code>{event}</code> · 🆔 {ids}',
  lookup_names_more: '… and {n} more {n#event|events}: add a word to narrow it.',
  lookup_names_hint: 'Tap an id to copy it, then /event or /item with it.',
  lookup_names_none:
    '🔎 “{query}” is not an id, and no team or league of your current opportunities matches it. An alert’s id is on its 🆔 line (tap it to copy); “📋 All for this event” under an alert shows its event.',
} satisfies Record<string, string>;

export const lookupsHelpRu: Record<keyof typeof lookupsHelpEn, string> = {
  lookup_partly:
    '🔎 Не найдено (искал в: {searched}). Сейчас не удалось поискать в: {unasked} — {reason}. Для {unasked_n#этого сервиса|этих сервисов|этих сервисов} это не «не найдено»: попробуйте через минуту.',
  lookup_partly_wait:
    '🔎 Не найдено (искал в: {searched}). Сейчас не удалось поискать в: {unasked} — {reason}; лимит освободится через {wait}. Для {unasked_n#этого сервиса|этих сервисов|этих сервисов} это не «не найдено»: попробуйте тогда.',
  lookup_names_found:
    '🔎 «{query}» — не id, поэтому я поискал среди команд и лиг ваших текущих возможностей: {n} {n#событие|события|событий}.',
  lookup_names_line: '• {teams} ({league}): /event <code>{event}</code> · 🆔 {ids}',
  lookup_names_more: '… и ещё {n} {n#событие|события|событий}: добавьте слово, чтобы сузить поиск.',
  lookup_names_hint: 'Нажмите на id, чтобы скопировать его, и отправьте /event или /item с ним.',
  lookup_names_none:
    '🔎 «{query}» — не id, и ни одна команда или лига ваших текущих возможностей с ним не совпадает. id оповещения — в его строке 🆔 (нажмите, чтобы скопировать); кнопка «📋 Всё по событию» под оповещением показывает его событие.',
};
