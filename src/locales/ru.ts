/** Every user-facing string of the bot in Russian; the same keys and placeholders as `en.ts`. */
import type { MessageKey } from './en.js';

export const ru: Record<MessageKey, string> = {
  // Services
  svc_arbs_prematch: 'Вилки · прематч',
  svc_arbs_live: 'Вилки · лайв',
  svc_middles_prematch: 'Коридоры · прематч',
  svc_middles_live: 'Коридоры · лайв',
  svc_valuebets_prematch: 'Валуйные ставки · прематч',
  svc_valuebets_live: 'Валуйные ставки · лайв',

  // Command menu
  cmd_start: 'Что делает бот и следующий шаг',
  cmd_help: 'Команды и следующий шаг',
  cmd_connect: 'Подключить пару ключей доступа',
  cmd_filter: 'Создать фильтр для сервиса',
  cmd_filters: 'Ваши фильтры: пауза, продолжение, правка, удаление',
  cmd_status: 'Покрытие, последние чтения, оповещения и ошибки',
  cmd_pause: 'Приостановить оповещения (все или один сервис)',
  cmd_resume: 'Возобновить оповещения (все или один сервис)',
  cmd_settings: 'Язык, часовой пояс, банк, тихие часы, куда слать оповещения',
  cmd_item: 'Показать одну возможность по её id',
  cmd_event: 'Показать возможности одного события',
  cmd_forget: 'Удалить ваш ключ и всё, что о вас хранится',
  cmd_cancel: 'Прервать текущий шаг',

  // Start and help
  start_intro:
    '👋 <b>Оповещения о ставках</b>\n' +
    'Я слежу за вилками, коридорами и валуйными ставками сервиса данных и за секунды присылаю оповещение, когда новая возможность подходит под ваш фильтр, а потом обновляю его (движение коэффициентов, исчезновение).',
  help_text:
    '<b>Команды</b>\n' +
    '/connect — подключить пару ключей (или <code>/connect &lt;access_key&gt; &lt;secret&gt; [сервис]</code>)\n' +
    '/filter — создать фильтр (или <code>/filter &lt;сервис&gt; min_profit=1 …</code>; для валуйных min_profit — минимальный перевес, то же, что min_overvalue)\n' +
    '/filters — ваши фильтры с кнопками\n' +
    '/status — покрытие, последние чтения, оповещения и ошибки\n' +
    '/pause, /resume — все фильтры или <code>/pause arbs_live</code>\n' +
    '/settings — язык, часовой пояс, банк, тихие часы, куда слать оповещения\n' +
    '/item <code>&lt;item_id&gt;</code>, /event <code>&lt;event_id&gt;</code> — полные карточки\n' +
    '/forget — удалить всё, что о вас хранится\n' +
    '/cancel — прервать текущий шаг\n' +
    'Инлайн: наберите <code>@{bot} &lt;id или слова&gt;</code> в любом чате, чтобы поделиться карточкой.',
  next_connect: '➡️ Следующий шаг: подключите пару ключей командой /connect.',
  next_filter: '➡️ Следующий шаг: создайте фильтр командой /filter.',
  next_resume: '➡️ Все ваши фильтры на паузе: /resume снова включит оповещения.',
  next_running: '✅ Оповещения включены. /status — покрытие, /filters — фильтры, /settings — настройки.',

  // Generic
  value: '{value}',
  none: '—',
  never: 'никогда',
  off: 'выкл.',
  and_more: 'и ещё {n}',
  cancelled: 'Остановлено. Больше ничего не изменено.',
  nothing_to_cancel: 'Прерывать нечего.',
  flow_closed: 'ℹ️ Я закрыл открытый шаг (из него ничего не сохранено).',
  flow_too_many_invalid: '⛔ Это уже {max} ответов, которые я не смог принять, поэтому я закрыл этот шаг (из него ничего не сохранено). Начните его заново, когда будете готовы.',
  flow_too_long: '⛔ Этот шаг затянулся, поэтому я закрыл его (из него ничего не сохранено). Начните его заново.',
  stale_button: 'Эта кнопка больше не действует.',
  expect_text: 'Пожалуйста, ответьте текстовым сообщением.',
  expect_text_or_button: 'Пожалуйста, ответьте текстом или нажмите кнопку.',
  use_buttons: 'Пожалуйста, выберите кнопкой.',
  unknown_command: 'Такой команды я не знаю. /help — список команд.',
  not_understood: 'Не совсем понял вас. /help — список команд.',
  error_generic: 'У меня что-то пошло не так. Попробуйте ещё раз; ничего не изменено.',
  not_allowed: 'Извините, это частный бот: он обслуживает только тех, кого разрешил владелец.',
  private_only: 'Пожалуйста, напишите мне в личном чате: @{bot}',
  need_key: 'Сначала подключите пару ключей доступа: /connect',

  // Bad input
  too_long: 'Слишком длинный текст (здесь не более {max} символов).',
  bad_number: '«{value}» — не число. Используйте цифры с точкой, например 1.5.',
  bad_range: '«{value}» — не диапазон. Отправьте одно число (от) или два (от-до), например 1.5-10.',
  range_reversed: 'Диапазон перевёрнут: {min} больше {max}. Сначала меньшее число.',
  negative_not_allowed: '{value} — отрицательное; здесь нужно {lowest} или больше.',
  value_too_low: '{value} — слишком мало; нужно {lowest} или больше.',
  value_too_high: '{value} — слишком много; нужно {highest} или меньше.',
  must_be_positive: '{value} должно быть больше нуля.',
  odds_below_one: 'Коэффициент {value} невозможен: десятичный коэффициент не меньше {lowest}.',
  unknown_service:
    '«{value}» — не сервис. Варианты: arbs_prematch, arbs_live, middles_prematch, middles_live, valuebets_prematch, valuebets_live.',
  unknown_option: '«{value}» — незнакомый параметр. Параметры: min_profit, max_profit, min_odds, max_odds, hours, sports, bookmakers, min_overvalue.',
  option_twice: 'Параметр {value} указан дважды.',
  same_option_twice: 'Для валуйных {first} и {second} — один и тот же параметр (перевес, %): укажите один из них.',
  option_empty: 'У параметра {value} нет значения.',
  option_not_for_service: 'Параметр {value} не подходит для {service}.',
  bad_id_list: '{option}={value}: укажите id через запятую, например {option}=1,5,6.',
  unknown_sport_ids: 'Неизвестные id видов спорта: {ids}.',
  unknown_bookmaker_ids: 'Неизвестные id букмекеров: {ids}.',
  bad_filter: 'Эти значения фильтра не сочетаются. Ничего не изменено.',
  bad_id: '«{value}» — неверный id (буквы, цифры, «.», «_», «:» и «-», до 100 символов).',
  bad_lang: '«{value}» — не знаю такого языка: английский (en) или русский (ru).',
  bad_timezone: '«{value}» — не часовой пояс. Используйте имя IANA, например Europe/Moscow, Asia/Tbilisi или UTC.',
  bad_quiet: '«{value}» — не интервал времени. Отправьте ЧЧ:ММ-ЧЧ:ММ (например 23:00-07:00) или «выкл».',
  quiet_same: 'Тихие часы с {value} до {value} были бы пустыми. Укажите два разных времени.',
  bad_chat_target: '«{value}» — не чат. Отправьте «здесь», id чата вроде -1001234567890 или публичный @username.',

  // Connect
  connect_ask_key:
    '🔑 <b>Шаг 1 из 2.</b> Отправьте <b>ключ доступа</b> (access key из личного кабинета на сайте сервиса).\n/cancel — отмена.',
  connect_ask_secret:
    '🔒 <b>Шаг 2 из 2.</b> Теперь отправьте <b>секретный ключ</b> для <code>{key}</code>.\nЯ сразу удалю ваше сообщение и храню секрет только в зашифрованном виде. /cancel — отмена.',
  connect_bad_key: 'Это не похоже на ключ доступа (2–128 букв, цифр, «.», «_», «~», «:» или «-»). Отправьте ещё раз или /cancel.',
  connect_bad_secret: 'Это не похоже на секретный ключ (4–512 символов без пробелов). Отправьте ещё раз или /cancel.',
  connect_usage: 'Используйте <code>/connect</code> без параметров или <code>/connect &lt;access_key&gt; &lt;secret&gt; [сервис]</code>.',
  connect_deleted: 'Я удалил ваше сообщение с секретом.',
  connect_not_deleted: '⚠️ Не удалось удалить ваше сообщение с секретом: пожалуйста, удалите его сами.',
  connect_ok: '✅ Ключ <code>{key}</code> подключён: пара работает для сервиса «{service}».',
  connect_ok_replaced:
    '✅ Ключ <code>{key}</code> подключён вместо старого: пара работает для сервиса «{service}». Ваши фильтры перенесены на него.',
  connect_rewrite_failed: '⚠️ Не удалось записать эти фильтры для нового ключа: {list}. Откройте /filters и сохраните их снова.',
  connect_no_access:
    '⚠️ Пара для <code>{key}</code> верная, но у неё нет доступа к сервису «{service}». Ключ сохранён: создавайте фильтры для сервисов из вашего тарифа.',
  connect_wrong:
    '❌ Пара для <code>{key}</code> неверна: сервис её отклонил. Ничего не сохранено. Проверьте секрет (сайт каждый раз показывает новый) и повторите /connect.',
  connect_taken:
    '⛔ Ключ <code>{key}</code> уже подключён в другом чате. Сервис хранит один фильтр на ключ, и два чата перезаписывали бы фильтры друг друга. Сначала отправьте /forget в том чате.',
  connect_rate_limited: '⏳ Слишком много проверок ключей. Ничего не сохранено; повторите /connect через {min} мин.',
  connect_unavailable: '⏳ Сервис не ответил на проверку. Ничего не сохранено; повторите /connect через минуту.',
  connect_next: '➡️ Дальше: создайте фильтр командой /filter.',

  // Filter builder
  fb_choose_service: '🧭 <b>Новый фильтр.</b> Для какого сервиса? (/cancel — отмена)',
  fb_chosen: '✔️ {value}',
  fb_sports: '🏟 <b>{service}: виды спорта.</b> Отметьте нужные и нажмите «Готово». Ничего не отмечено = все виды спорта.',
  fb_bookmakers: '🏦 <b>Букмекеры.</b> Отметьте нужных и нажмите «Готово». Никто не отмечен = все букмекеры.',
  fb_no_dicts:
    'Списки видов спорта и букмекеров сейчас недоступны, поэтому фильтр охватывает все. Id можно указать позже в однострочной команде /filter.',
  fb_profit: '📈 <b>Прибыль, %.</b> Отправьте минимум (например <code>1.5</code>) или диапазон (например <code>1.5-10</code>).',
  fb_profit_middles:
    '📈 <b>Прибыль при промахе коридора, %.</b> Может быть отрицательной (например <code>-2</code>). Отправьте минимум или диапазон (например <code>-2-5</code>).',
  fb_overvalue: '📈 <b>Минимальный перевес, %.</b> Отправьте число (например <code>3</code>).',
  fb_odds: '🎯 <b>Коэффициент каждого плеча.</b> Отправьте минимум (например <code>1.5</code>) или диапазон (например <code>1.5-3.5</code>).',
  fb_hours: '⏱ <b>Только события, которые начнутся в ближайшие N часов?</b> Отправьте число (например <code>12</code>).',
  fb_try_again: 'Отправьте другое значение или нажмите кнопку.',
  fb_summary: '📝 <b>Ваш фильтр: {service}</b>',
  fb_press_save: 'Пожалуйста, нажмите «Сохранить» или «Отмена».',
  fb_cancelled: 'Фильтр не сохранён.',
  fb_saved: '✅ Фильтр «{service}» сохранён. Оповещения начнутся через несколько секунд.',
  fb_save_token_limited:
    '⏳ Ваш ключ израсходовал запросы токенов, которые этот час оставляет командам (остальное идёт на ваши оповещения). Ничего не сохранено; попробуйте через {min} мин.',
  fb_save_rate_limited: '⏳ Сервис разрешает лишь несколько записей фильтра в час. Ничего не сохранено; попробуйте через {min} мин.',
  fb_save_forbidden: '⛔ У вашего ключа нет доступа к сервису «{service}», фильтр не сохранён.',
  fb_save_auth: '❌ Сервис отклонил вашу пару ключей. Подключите её заново: /connect.',
  fb_save_failed: '⏳ Фильтр не сохранён: {reason}. Попробуйте через минуту.',
  filter_usage:
    'Одной строкой: <code>/filter &lt;сервис&gt; [min_profit=N] [max_profit=N] [min_odds=N] [max_odds=N] [hours=N] [sports=ID,ID] [bookmakers=ID,ID]</code> (валуйные: <code>min_overvalue=N</code> или <code>min_profit=N</code>, это одно и то же: прибыль валуйной ставки — её перевес). Или просто /filter — пошаговый конструктор.',
  coverage_now: '📡 Покрытие: {list}.',
  coverage_tradeoff:
    '⚖️ Ключ даёт ограниченное число токенов в час, и сервисы делят его: {list} времени. Лайв-сервисы идут первыми.',
  ms_selected: 'Выбрано ({n}): {list}',
  ms_none_selected: 'Ничего не выбрано: {all}.',
  ms_search: '🔎 Поиск: «{query}»',
  ms_search_hint: 'Наберите название для поиска.',
  ms_no_match: 'Ничего не найдено по «{query}». Попробуйте другое название.',
  ms_unknown_ids: 'Неизвестные id: {ids}.',
  ms_use_buttons: 'Пожалуйста, выберите кнопками (или наберите id через запятую).',
  btn_any: 'Любой',
  btn_any_odds: 'Любые коэффициенты',
  btn_any_time: 'Любое время',
  btn_profit_default: 'От 0 %',
  btn_keep: 'Оставить: {value}',
  btn_done: 'Готово ✓',
  btn_clear_search: '✖ Сбросить поиск',
  btn_save: '💾 Сохранить',
  btn_cancel: '✖ Отмена',
  btn_edit: '✏️ Изменить',
  btn_delete: '🗑 Удалить',
  btn_delete_yes: '🗑 Да, удалить',
  btn_no: 'Нет',
  btn_forget_yes: '🗑 Да, удалить всё',
  all_sports: 'Все виды спорта',
  all_bookmakers: 'Все букмекеры',

  // Filter descriptions
  f_sports: 'Виды спорта',
  f_bookmakers: 'Букмекеры',
  f_profit: 'Прибыль',
  f_overvalue: 'Перевес',
  f_odds: 'Коэффициенты',
  f_hours: 'Начало в пределах',
  range_any: 'любые',
  range_from: 'от {min}',
  range_to: 'до {max}',
  hours_n: '{n} ч',
  state_active: '🟢 активен',
  state_paused_user: '⏸ на паузе (вами)',
  state_paused_auth: '⛔ на паузе: сервис отклонил пару ключей (повторите /connect)',
  state_paused_forbidden: '⛔ на паузе: у ключа нет доступа к этому сервису',
  state_paused_blocked: '⏸ на паузе, пока бот был заблокирован',

  // Filters, pause, resume
  filters_title: '🗂 <b>Ваши фильтры</b>',
  filters_none: 'Фильтров пока нет. Создайте фильтр командой /filter.',
  filter_gone: 'Этого фильтра больше нет.',
  filter_delete_confirm: 'Удалить фильтр «{service}»? Его оповещения прекратятся.',
  filter_deleted: 'Фильтр «{service}» удалён.',
  paused_one: '{service}: на паузе.',
  resumed_one: '{service}: возобновлён.',
  paused_list: '⏸ На паузе: {list}. /resume включит снова.',
  resumed_list: '▶️ Возобновлены: {list}.',
  no_filter_for: 'У вас нет фильтра для сервиса «{service}».',

  // Status
  status_key: '🔑 Ключ <code>{key}</code>, подключён {when}.',
  status_coverage: '📡 Покрытие {share} времени, чтение {every}.',
  status_coverage_shared: '📡 Покрытие {share} времени, чтение {every}, общее с {n} {n#другим пользователем|другими пользователями|другими пользователями} с тем же фильтром.',
  status_not_polled: '📡 Сейчас не опрашивается.',
  status_snoozed: '💤 Отложено до {until}.',
  status_last_read: 'Последнее успешное чтение',
  status_last_alert: 'Последнее оповещение',
  status_last_error: 'Последняя ошибка',
  every_s: 'каждые {n} с',
  every_min: 'каждые {n} мин',
  ago_now: 'только что',
  ago_min: '{n} мин назад',
  ago_h: '{n} ч назад',
  ago_d: '{n} дн. назад',
  errw_auth: 'сервис отклонил пару ключей',
  errw_forbidden: 'у ключа нет доступа к этому сервису',
  errw_rate_limited: 'достигнут лимит запросов сервиса',
  errw_not_found: 'сервис этого не предоставляет',
  errw_server: 'внутренняя ошибка сервиса',
  errw_timeout: 'сервис не ответил вовремя',
  errw_malformed: 'сервис прислал непонятный ответ',
  errw_other: 'непредвиденная проблема ({kind})',

  // Settings
  settings_title: '⚙️ <b>Настройки</b>',
  settings_done: 'Настройки сохранены.',
  setting_saved: '✅ Сохранено.',
  settings_usage:
    'Одной строкой: <code>/settings lang en|ru</code>, <code>/settings tz Europe/Moscow</code>, <code>/settings bankroll 500</code>, <code>/settings step 5</code>, <code>/settings quiet 23:00-07:00</code> или <code>off</code>, <code>/settings alerts here|-100123…|@channel</code>. Или просто /settings — меню.',
  unknown_setting: '«{value}» — нет такой настройки. Настройки: lang, tz, bankroll, step, quiet, alerts.',
  set_lang: '🌐 Язык',
  set_tz: '🕒 Часовой пояс',
  set_bankroll: '💰 Банк',
  set_step: '🔢 Шаг округления',
  set_quiet: '🌙 Тихие часы',
  set_alerts: '📨 Куда слать',
  ask_lang: 'Какой язык?',
  ask_tz: 'Отправьте часовой пояс именем IANA (например Europe/Moscow) или выберите:',
  ask_bankroll: 'Отправьте банк (сумму, которую делить между плечами вилки), например 500:',
  ask_step: 'Ставки округляются до кратного этому шагу. Отправьте число или выберите:',
  ask_quiet: 'Отправьте тихие часы как ЧЧ:ММ-ЧЧ:ММ (например 23:00-07:00): оповещения подождут и придут одной сводкой. Или выключите:',
  ask_alerts:
    'Куда слать оповещения? Отправьте id группы или канала (например -1001234567890) или его публичный @username; я должен быть там администратором, как и вы. Или оставьте здесь:',
  alerts_here: 'этот чат',
  alerts_chat: 'чат {id}',
  alerts_not_group: 'Это личный чат; оповещения можно слать в группу или канал.',
  alerts_chat_unknown: 'Я не вижу чат {value}. Сначала добавьте меня туда (администратором).',
  alerts_bot_not_admin: 'Я не администратор в «{chat}». Сначала сделайте меня администратором.',
  alerts_user_not_admin: 'Вы не администратор в «{chat}», поэтому слать туда ваши оповещения нельзя.',
  alerts_chat_lost:
    'ℹ️ Меня удалили из «{chat}», поэтому оповещения снова приходят в этот чат. Чтобы слать их туда снова, добавьте меня обратно администратором и выберите чат командой <code>/settings alerts</code>.',
  alerts_chat_gone:
    'ℹ️ Чата «{chat}» больше нет (удалён, или я его больше не вижу), поэтому оповещения снова приходят в этот чат. Чтобы слать их в другую группу или канал, используйте <code>/settings alerts</code>.',
  alerts_bot_rights_lost:
    'ℹ️ Я больше не администратор в «{chat}» (или не могу там писать), поэтому оповещения снова приходят в этот чат. Сделайте меня администратором и выберите чат снова командой <code>/settings alerts</code>.',
  alerts_user_rights_lost:
    'ℹ️ Вы больше не администратор в «{chat}», поэтому ваши оповещения туда слать нельзя: они снова приходят в этот чат. Когда снова станете администратором, выберите чат командой <code>/settings alerts</code>.',

  // Lookups
  item_usage: 'Используйте <code>/item &lt;item_id&gt; [сервис]</code>.',
  event_usage: 'Используйте <code>/event &lt;event_id&gt; [сервис]</code>.',
  item_not_found: 'Возможность с id <code>{id}</code> не найдена.',
  event_not_found: 'Возможностей события <code>{id}</code> не найдено.',
  lookup_reason: '({reason})',
  lookup_need_service: 'Укажите и сервис (фильтров у вас пока нет), например <code>/item a1 arbs_prematch</code>.',
  event_items: '📋 Событие <code>{id}</code>: {n} {n#возможность|возможности|возможностей}.',
  from_latest: 'ℹ️ Сервис не ответил на этот запрос, поэтому это из последнего списка, который у меня есть.',
  more_items: '… и ещё {n}.',
  lookup_unshowable: '⚠️ Сервис прислал для {n} из этих позиций данные, которые я не могу показать, поэтому они пропущены. Попробуйте позже.',

  // Alert buttons
  not_your_alert: 'Это оповещение другого пользователя, и его кнопки — тоже.',
  ask_stake_amount: 'Отправьте сумму для распределения (ваш банк — {bankroll}):',
  stake_try_again: 'Отправьте другую сумму или /cancel.',
  event_muted: 'Событие заглушено на 24 ч.',
  filter_snoozed: '{service}: оповещения отложены до {until}.',

  // Inline mode
  inline_connect: 'Подключите ключ, чтобы видеть свои возможности',
  inline_nothing: 'Ничего не найдено: откройте бота',

  // Secrets, caps and wait times
  secret_question_closed: 'ℹ️ Я больше не жду секретный ключ: то, что вы пришлёте сейчас, ключом не считается. Чтобы подключить ключ, отправьте /connect.',
  secret_edit_deleted: 'Я удалил ваше изменённое сообщение: я жду секретный ключ. Пришлите его новым сообщением или /cancel.',
  secret_expected_first: 'Я жду секретный ключ (из /connect). Сначала пришлите его или /cancel, потом нажмите кнопку снова.',
  connect_group_deleted: '🔐 Я удалил здесь сообщение с секретным ключом: никогда не публикуйте его в группе. Подключайте ключ в личном чате со мной: @{bot}',
  connect_group_not_deleted: '⚠️ Здесь сообщение с секретным ключом, и я не смог его удалить: удалите его сейчас и смените секрет. Подключайте ключи только в личном чате со мной: @{bot}',
  stake_asked_private: 'Я спросил сумму в нашем личном чате.',
  stake_private_unreachable: 'Сначала откройте личный чат со мной (нажмите там «Старт»), потом нажмите кнопку снова.',
  not_your_button: 'Эти кнопки принадлежат другому пользователю.',
  cap_connect: '⏳ Слишком много проверок ключей за последнее время, а каждая тратит общий бюджет сервиса. Ничего не сохранено; повторите /connect через {wait}.',
  cap_lookup: '⏳ Слишком много запросов за короткое время (они тратят бюджет сервиса, нужный вашим оповещениям). Повторите через {wait}.',
  cap_filter: '⏳ Слишком много сохранений фильтра за последнее время (каждое тратит бюджет сервиса, нужный вашим оповещениям). Ничего не сохранено; повторите через {wait}.',
  cap_inline: 'Слишком много поисков: повторите через {wait}',
  wait_s: '{n} {n#секунду|секунды|секунд}',
  wait_min: '{n} {n#минуту|минуты|минут}',

  // Forget
  forget_confirm: '⚠️ Удалить ваш ключ, фильтры, настройки и историю оповещений? Это необратимо.',
  forget_done: '🗑 Готово: всё, что я хранил о вас, удалено. /start — начать заново.',
  forget_kept: 'Ничего не удалено.',
  forget_expired: 'Срок этого подтверждения истёк. Отправьте /forget ещё раз.',
  forget_nothing: 'Я ничего о вас не храню.',

  // Bookmakers: commission, limits, steps, status (issue 22)
  cmd_books: 'Ваши букмекеры: комиссия, лимиты, шаги, статус',
  book_usage: 'Одной строкой: <code>/book &lt;id или название букмекера&gt; [commission=N] [max=N] [min=N] [step=N] [status=ok|limited|closed]</code> (суммы в вашей валюте, комиссия в %), или <code>/book &lt;букмекер&gt; reset</code>. /books — список ваших букмекеров.',
  book_unknown: 'Не знаю букмекера «{value}». /books покажет их с id.',
  book_ambiguous: 'Подходят несколько букмекеров: {names}. Укажите id.',
  book_nothing_to_set: 'Для {name} нечего менять: добавьте commission=N, max=N, min=N, step=N или status=ok|limited|closed, или «reset».',
  book_reset_alone: '«reset» пишется отдельно: <code>/book &lt;букмекер&gt; reset</code>. Ничего не изменено.',
  book_unknown_option: '«{value}» — незнакомый параметр. Параметры: commission, max, min, step, status. Ничего не изменено.',
  book_option_twice: '{value} указан дважды. Укажите каждый параметр один раз; ничего не изменено.',
  book_bad_status: '«{value}» — не статус: используйте ok, limited или closed. Ничего не изменено.',
  book_bad_commission: 'Комиссия — процент от 0 до {max}. Ничего не изменено.',
  book_bad_amount: '{option} — положительная сумма в вашей валюте, с точностью до копеек. Ничего не изменено.',
  book_min_over_max: 'Минимум ({min}) оказался бы больше максимума ({max}). Ничего не изменено.',
  book_saved: '✅ Сохранено для {name}: {parts}. Новые сигналы считаются так.',
  book_reset_done: '↺ {name}: настройки по умолчанию.',
  books_title: '🏦 <b>Ваши букмекеры</b>',
  books_none: 'Настроек пока нет.',
  books_line: '<b>{name}</b> ({id}): {parts}',
  books_commission: 'комиссия {value} %',
  books_commission_default: 'комиссия {value} % (предположительно: проверьте ставку своего счёта)',
  books_max: 'макс. {value}',
  books_min: 'мин. {value}',
  books_step: 'шаг {value}',
  books_status_ok: 'ok',
  books_status_limited: '⚠️ порезан',
  books_status_closed: '⛔ закрыт: сигналов с ним нет',
  books_hint: 'Изменить: <code>/book &lt;название&gt; max=300 step=5</code> или <code>/book &lt;название&gt; commission=2</code>; кнопки меняют статус (ok → порезан → закрыт) или сбрасывают настройки. Максимум ограничивает ставку на этот исход (для ставки «против» — ответственность); с закрытым букмекером сигналов нет.',
  books_no_names: 'Названия букмекеров сейчас недоступны (не удалось прочитать справочники). Попробуйте через минуту.',
  btn_book_status: '{name}: {status}',
  btn_book_reset: '↺ {name}',
  book_button_done: '{name}: {status}',

  // Admin
  stats_title: '📊 <b>Статистика</b>',
  stats_line: '{name}: <b>{value}</b>',
};
