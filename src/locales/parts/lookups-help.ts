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
  // /help: the group titles and the lines longer than the menu's words (src/bot/commands.ts).
  help_group_alerts: '🔔 Alerts',
  help_group_filters: '🎯 Filters',
  help_group_desk: '📚 Desk: your bookmakers and stakes',
  help_group_ledger: '📒 Ledger: your bets',
  help_group_settings: '⚙️ Settings',
  help_group_lookups: '🔎 Lookups',
  help_connect: 'Connect your access key pair (or <code>/connect &lt;access_key&gt; &lt;secret&gt; [service]</code>)',
  help_filter:
    'Build a filter (or <code>/filter &lt;service&gt; min_profit=1 …</code>; for valuebets min_profit is the minimum overvalue, same as min_overvalue)',
  help_pause: 'Pause alerts: all filters, or one with <code>/pause arbs_live</code>',
  help_book: 'One bookmaker’s commission, limits, step and status: <code>/book Pinnacle commission=2 max=500 step=5</code>',
  help_staking: 'How alerts split an arb: <code>/staking equal</code>, <code>high</code> or <code>low</code>',
  help_item: 'One opportunity by its id: <code>/item &lt;item_id&gt; [service]</code>',
  help_event: 'Every opportunity of one event: <code>/event &lt;event_id&gt; [service]</code>, or <code>/event Chelsea</code> to find it by a team',
  help_inline: 'Inline: type <code>@{bot} &lt;id or words&gt;</code> in any chat to share a card.',
  cmd_book: 'One bookmaker: commission, limits, step, status',
  cmd_stats: 'The bot’s figures (admins only)',
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
  help_group_alerts: '🔔 Оповещения',
  help_group_filters: '🎯 Фильтры',
  help_group_desk: '📚 Конторы: ваши букмекеры и ставки',
  help_group_ledger: '📒 Журнал: ваши ставки',
  help_group_settings: '⚙️ Настройки',
  help_group_lookups: '🔎 Поиск',
  help_connect: 'Подключить пару ключей (или <code>/connect &lt;access_key&gt; &lt;secret&gt; [сервис]</code>)',
  help_filter:
    'Создать фильтр (или <code>/filter &lt;сервис&gt; min_profit=1 …</code>; для валуйных min_profit — минимальный перевес, то же, что min_overvalue)',
  help_pause: 'Приостановить оповещения: все фильтры или один — <code>/pause arbs_live</code>',
  help_book: 'Комиссия, лимиты, шаг и статус одного букмекера: <code>/book Pinnacle commission=2 max=500 step=5</code>',
  help_staking: 'Как делить ставки вилки: <code>/staking equal</code>, <code>high</code> или <code>low</code>',
  help_item: 'Одна возможность по её id: <code>/item &lt;item_id&gt; [сервис]</code>',
  help_event: 'Все возможности одного события: <code>/event &lt;event_id&gt; [сервис]</code> или <code>/event Chelsea</code>, чтобы найти его по команде',
  help_inline: 'Инлайн: наберите <code>@{bot} &lt;id или слова&gt;</code> в любом чате, чтобы поделиться карточкой.',
  cmd_book: 'Один букмекер: комиссия, лимиты, шаг, статус',
  cmd_stats: 'Цифры бота (только для админов)',
};
