/**
 * Every user-facing string of the bot in English (HTML parse mode: literal "<" and ">" are
 * written as entities). `{name}` placeholders are filled, HTML-escaped, by `t`. Button labels
 * (btn_*, set_*, svc_*) and command descriptions (cmd_*) are plain text.
 */
export const en = {
  // Services
  svc_arbs_prematch: 'Arbs · prematch',
  svc_arbs_live: 'Arbs · live',
  svc_middles_prematch: 'Middles · prematch',
  svc_middles_live: 'Middles · live',
  svc_valuebets_prematch: 'Valuebets · prematch',
  svc_valuebets_live: 'Valuebets · live',

  // Command menu
  cmd_start: 'What this bot does and the next step',
  cmd_help: 'Commands and the next step',
  cmd_connect: 'Connect your access key pair',
  cmd_filter: 'Build a filter for a service',
  cmd_filters: 'Your filters: pause, resume, edit, delete',
  cmd_status: 'Coverage, last reads, alerts and errors',
  cmd_pause: 'Pause alerts (all or one service)',
  cmd_resume: 'Resume alerts (all or one service)',
  cmd_settings: 'Language, time zone, bankroll, quiet hours, where alerts go',
  cmd_item: 'Show one opportunity by its id',
  cmd_event: 'Show the opportunities of one event',
  cmd_forget: 'Delete your key and everything stored about you',
  cmd_cancel: 'Stop the current step',

  // Start and help
  start_intro:
    '👋 <b>Betting opportunity alerts</b>\n' +
    'I watch the arbs, middles and valuebets of the Data Service for you and send an alert within seconds when a new one matches your filter, then keep it up to date (odds moves, gone).',
  help_text:
    '<b>Commands</b>\n' +
    '/connect — connect your access key pair (or <code>/connect &lt;access_key&gt; &lt;secret&gt; [service]</code>)\n' +
    '/filter — build a filter (or <code>/filter &lt;service&gt; min_profit=1 …</code>; for valuebets min_profit is the minimum overvalue, same as min_overvalue)\n' +
    '/filters — your filters with buttons\n' +
    '/status — coverage, last reads, alerts and errors\n' +
    '/pause, /resume — all filters, or <code>/pause arbs_live</code>\n' +
    '/settings — language, time zone, bankroll, quiet hours, where alerts go\n' +
    '/item <code>&lt;item_id&gt;</code>, /event <code>&lt;event_id&gt;</code> — full cards\n' +
    '/forget — delete everything stored about you\n' +
    '/cancel — stop the current step\n' +
    'Inline: type <code>@{bot} &lt;id or words&gt;</code> in any chat to share a card.',
  next_connect: '➡️ Next step: connect your access key pair with /connect.',
  next_filter: '➡️ Next step: build a filter with /filter.',
  next_resume: '➡️ All your filters are paused: /resume turns alerts back on.',
  next_running: '✅ Alerts are on. /status shows the coverage, /filters your filters, /settings your preferences.',

  // Generic
  value: '{value}',
  none: '—',
  never: 'never',
  off: 'off',
  and_more: 'and {n} more',
  cancelled: 'Stopped. Nothing more was changed.',
  nothing_to_cancel: 'There is nothing to stop.',
  flow_closed: 'ℹ️ I closed the step that was open (nothing from it was saved).',
  flow_too_many_invalid: '⛔ That was {max} answers I could not use, so I closed this step (nothing from it was saved). Start it again when you are ready.',
  flow_too_long: '⛔ This step went on too long, so I closed it (nothing from it was saved). Start it again.',
  stale_button: 'This button is no longer active.',
  expect_text: 'Please answer with a text message.',
  expect_text_or_button: 'Please answer with a text message or press a button.',
  use_buttons: 'Please choose with the buttons.',
  unknown_command: 'I do not know that command. /help lists what I can do.',
  not_understood: 'I am not sure what you mean. /help lists what I can do.',
  error_generic: 'Something went wrong on my side. Please try again; nothing was changed.',
  not_allowed: 'Sorry, this bot is private: it only serves the people its owner allowed.',
  private_only: 'Please talk to me in a private chat: @{bot}',
  need_key: 'First connect your access key pair: /connect',

  // Bad input
  too_long: 'That text is too long (at most {max} characters here).',
  bad_number: '“{value}” is not a number. Use digits with a dot, like 1.5.',
  bad_range: '“{value}” is not a range. Send one number (from) or two (from-to), like 1.5-10.',
  range_reversed: 'The range is reversed: {min} is above {max}. Send the smaller number first.',
  negative_not_allowed: '{value} is negative; it must be {lowest} or more here.',
  value_too_low: '{value} is too low; it must be {lowest} or more.',
  value_too_high: '{value} is too high; it must be {highest} or less.',
  must_be_positive: '{value} must be above zero.',
  odds_below_one: 'Odds of {value} are impossible: decimal odds are at least {lowest}.',
  unknown_service:
    '“{value}” is not a service. Use one of: arbs_prematch, arbs_live, middles_prematch, middles_live, valuebets_prematch, valuebets_live.',
  unknown_option: '“{value}” is not an option I know. Options: min_profit, max_profit, min_odds, max_odds, hours, sports, bookmakers, min_overvalue.',
  option_twice: 'The option {value} is given twice.',
  same_option_twice: 'For valuebets {first} and {second} are the same option (the overvalue, %): give one of them.',
  option_empty: 'The option {value} has no value.',
  option_not_for_service: 'The option {value} does not apply to {service}.',
  bad_id_list: '{option}={value}: use ids separated by commas, like {option}=1,5,6.',
  unknown_sport_ids: 'Unknown sport ids: {ids}.',
  unknown_bookmaker_ids: 'Unknown bookmaker ids: {ids}.',
  bad_filter: 'These filter values do not fit together. Nothing was changed.',
  bad_id: '“{value}” is not a valid id (letters, digits, “.”, “_”, “:” and “-”, up to 100 characters).',
  bad_lang: '“{value}” is not a language I speak: English (en) or Russian (ru).',
  bad_timezone: '“{value}” is not a time zone. Use an IANA name like Europe/Moscow, Asia/Tbilisi or UTC.',
  bad_quiet: '“{value}” is not a time range. Send HH:MM-HH:MM (like 23:00-07:00) or “off”.',
  quiet_same: 'Quiet hours from {value} to {value} would be empty. Use two different times.',
  bad_chat_target: '“{value}” is not a chat. Send “here”, a chat id like -1001234567890, or a public @username.',

  // Connect
  connect_ask_key:
    '🔑 <b>Step 1 of 2.</b> Send your <b>access key</b> (from your account on the service’s site).\n/cancel stops.',
  connect_ask_secret:
    '🔒 <b>Step 2 of 2.</b> Now send the <b>secret key</b> for <code>{key}</code>.\nI delete your message at once and keep the secret only encrypted. /cancel stops.',
  connect_bad_key: 'That does not look like an access key (2–128 letters, digits, “.”, “_”, “~”, “:” or “-”). Send it again, or /cancel.',
  connect_bad_secret: 'That does not look like a secret key (4–512 characters without spaces). Send it again, or /cancel.',
  connect_usage: 'Use <code>/connect</code> alone, or <code>/connect &lt;access_key&gt; &lt;secret&gt; [service]</code>.',
  connect_deleted: 'I deleted your message with the secret.',
  connect_not_deleted: '⚠️ I could not delete your message with the secret: please delete it yourself.',
  connect_ok: '✅ Key <code>{key}</code> connected: the pair works for {service}.',
  connect_ok_replaced: '✅ Key <code>{key}</code> connected instead of your old key: the pair works for {service}. Your filters were moved to it.',
  connect_rewrite_failed: '⚠️ I could not write these filters for the new key: {list}. Open /filters and save them again.',
  connect_no_access:
    '⚠️ The pair for <code>{key}</code> is right, but it has no access to {service}. I saved the key: build filters for the services your plan includes.',
  connect_wrong:
    '❌ The pair for <code>{key}</code> is wrong: the service refused it. Nothing was saved. Check the secret (the site shows a new one each time) and try /connect again.',
  connect_taken:
    '⛔ The key <code>{key}</code> is already connected in another chat. The service keeps one filter per key, so two chats would overwrite each other’s filters. Send /forget in that chat first.',
  connect_rate_limited: '⏳ Too many key checks for now. Nothing was saved; try /connect again in {min} min.',
  connect_unavailable: '⏳ The service did not answer the check. Nothing was saved; try /connect again in a minute.',
  connect_next: '➡️ Next: build a filter with /filter.',

  // Filter builder
  fb_choose_service: '🧭 <b>New filter.</b> Which service? (/cancel stops)',
  fb_chosen: '✔️ {value}',
  fb_sports: '🏟 <b>{service}: sports.</b> Tap to select, then “Done”. No selection = all sports.',
  fb_bookmakers: '🏦 <b>Bookmakers.</b> Tap to select, then “Done”. No selection = all bookmakers.',
  fb_no_dicts: 'The sports and bookmakers lists are not available right now, so the filter covers all of them. You can name ids later with the one-line /filter.',
  fb_profit: '📈 <b>Profit, %.</b> Send the minimum (like <code>1.5</code>) or a range (like <code>1.5-10</code>).',
  fb_profit_middles:
    '📈 <b>Profit if the middle misses, %.</b> It may be negative (like <code>-2</code>). Send the minimum or a range (like <code>-2-5</code>).',
  fb_overvalue: '📈 <b>Minimum overvalue, %.</b> Send a number (like <code>3</code>).',
  fb_odds: '🎯 <b>Odds of every leg.</b> Send the minimum (like <code>1.5</code>) or a range (like <code>1.5-3.5</code>).',
  fb_hours: '⏱ <b>Only events starting within how many hours?</b> Send a number (like <code>12</code>).',
  fb_try_again: 'Send another value or press a button.',
  fb_summary: '📝 <b>Your filter for {service}</b>',
  fb_press_save: 'Please press “Save” or “Cancel”.',
  fb_cancelled: 'The filter was not saved.',
  fb_saved: '✅ Filter for {service} saved. Alerts start within seconds.',
  fb_save_token_limited:
    '⏳ Your key has used the token requests this hour leaves to commands (the rest keeps your alerts coming). Nothing was saved; try again in {min} min.',
  fb_save_rate_limited: '⏳ The service allows only a few filter writes an hour. Nothing was saved; try again in {min} min.',
  fb_save_forbidden: '⛔ Your key has no access to {service}, so the filter was not saved.',
  fb_save_auth: '❌ The service refused your key pair. Connect it again with /connect.',
  fb_save_failed: '⏳ The filter was not saved: {reason}. Please try again in a minute.',
  filter_usage:
    'One line: <code>/filter &lt;service&gt; [min_profit=N] [max_profit=N] [min_odds=N] [max_odds=N] [hours=N] [sports=ID,ID] [bookmakers=ID,ID]</code> (valuebets: <code>min_overvalue=N</code>, or <code>min_profit=N</code>, the same: for a valuebet the profit is its overvalue). Or just /filter for the guided builder.',
  coverage_now: '📡 Coverage: {list}.',
  coverage_tradeoff:
    '⚖️ Your key allows a limited number of tokens an hour, so the services share it: {list} of the time. Live services come first.',
  ms_selected: 'Selected ({n}): {list}',
  ms_none_selected: 'Nothing selected: {all}.',
  ms_search: '🔎 Search: “{query}”',
  ms_search_hint: 'Type a name to search.',
  ms_no_match: 'Nothing matches “{query}”. Try another name.',
  ms_unknown_ids: 'Unknown ids: {ids}.',
  ms_use_buttons: 'Please choose with the buttons (or type ids separated by commas).',
  btn_any: 'Any',
  btn_any_odds: 'Any odds',
  btn_any_time: 'Any time',
  btn_profit_default: 'From 0 %',
  btn_keep: 'Keep: {value}',
  btn_done: 'Done ✓',
  btn_clear_search: '✖ Clear search',
  btn_save: '💾 Save',
  btn_cancel: '✖ Cancel',
  btn_edit: '✏️ Edit',
  btn_delete: '🗑 Delete',
  btn_delete_yes: '🗑 Yes, delete',
  btn_no: 'No',
  btn_forget_yes: '🗑 Yes, delete everything',
  all_sports: 'All sports',
  all_bookmakers: 'All bookmakers',

  // Filter descriptions
  f_sports: 'Sports',
  f_bookmakers: 'Bookmakers',
  f_profit: 'Profit',
  f_overvalue: 'Overvalue',
  f_odds: 'Odds',
  f_hours: 'Starts within',
  range_any: 'any',
  range_from: 'from {min}',
  range_to: 'up to {max}',
  hours_n: '{n} h',
  state_active: '🟢 active',
  state_paused_user: '⏸ paused by you',
  state_paused_auth: '⛔ paused: the service refused your key pair (/connect again)',
  state_paused_forbidden: '⛔ paused: your key has no access to this service',
  state_paused_blocked: '⏸ paused while the bot was blocked',

  // Filters, pause, resume
  filters_title: '🗂 <b>Your filters</b>',
  filters_none: 'You have no filters yet. Build one with /filter.',
  filter_gone: 'This filter no longer exists.',
  filter_delete_confirm: 'Delete the filter for {service}? Its alerts stop.',
  filter_deleted: 'Filter for {service} deleted.',
  paused_one: '{service}: paused.',
  resumed_one: '{service}: resumed.',
  paused_list: '⏸ Paused: {list}. /resume turns them back on.',
  resumed_list: '▶️ Resumed: {list}.',
  no_filter_for: 'You have no filter for {service}.',

  // Status
  status_key: '🔑 Key <code>{key}</code>, connected {when}.',
  status_coverage: '📡 Coverage {share} of the time, a read {every}.',
  status_coverage_shared: '📡 Coverage {share} of the time, a read {every}, shared with {n} {n#other user|other users} with the same filter.',
  status_not_polled: '📡 Not polled now.',
  status_snoozed: '💤 Snoozed until {until}.',
  status_last_read: 'Last good read',
  status_last_alert: 'Last alert',
  status_last_error: 'Last error',
  every_s: 'every {n} s',
  every_min: 'every {n} min',
  ago_now: 'just now',
  ago_min: '{n} min ago',
  ago_h: '{n} h ago',
  ago_d: '{n} d ago',
  errw_auth: 'the service refused the key pair',
  errw_forbidden: 'no access to this service with your key',
  errw_rate_limited: 'the service’s request limit was reached',
  errw_not_found: 'the service does not offer this',
  errw_server: 'the service had an internal error',
  errw_timeout: 'the service did not answer in time',
  errw_malformed: 'the service sent an answer I could not read',
  errw_other: 'an unexpected problem ({kind})',

  // Settings
  settings_title: '⚙️ <b>Settings</b>',
  settings_done: 'Settings saved.',
  setting_saved: '✅ Saved.',
  settings_usage:
    'One line: <code>/settings lang en|ru</code>, <code>/settings tz Europe/Moscow</code>, <code>/settings bankroll 500</code>, <code>/settings step 5</code>, <code>/settings quiet 23:00-07:00</code> or <code>off</code>, <code>/settings alerts here|-100123…|@channel</code>. Or just /settings for the menu.',
  unknown_setting: '“{value}” is not a setting. Settings: lang, tz, bankroll, step, quiet, alerts.',
  set_lang: '🌐 Language',
  set_tz: '🕒 Time zone',
  set_bankroll: '💰 Bankroll',
  set_step: '🔢 Rounding step',
  set_quiet: '🌙 Quiet hours',
  set_alerts: '📨 Alerts go to',
  ask_lang: 'Which language?',
  ask_tz: 'Send your time zone as an IANA name (like Europe/Moscow), or pick one:',
  ask_bankroll: 'Send your bankroll (the total to split between the legs of an arb), like 500:',
  ask_step: 'Stakes are rounded to a multiple of this step. Send a number or pick one:',
  ask_quiet: 'Send quiet hours as HH:MM-HH:MM (like 23:00-07:00): alerts then wait and come as one summary. Or turn them off:',
  ask_alerts:
    'Where should alerts go? Send a group or channel id (like -1001234567890) or its public @username; I must be an admin there, and so must you. Or keep them here:',
  alerts_here: 'this chat',
  alerts_chat: 'chat {id}',
  alerts_not_group: 'That is a private chat; alerts can go to a group or a channel.',
  alerts_chat_unknown: 'I cannot see the chat {value}. Add me to it first (as an admin).',
  alerts_bot_not_admin: 'I am not an admin in “{chat}”. Make me an admin there first.',
  alerts_user_not_admin: 'You are not an admin in “{chat}”, so alerts cannot be sent there for you.',
  alerts_chat_lost:
    'ℹ️ I was removed from “{chat}”, so your alerts come to this chat again. To send them there again, add me back as an admin and choose it with <code>/settings alerts</code>.',
  alerts_chat_gone:
    'ℹ️ The chat “{chat}” is gone (deleted, or I can no longer see it), so your alerts come to this chat again. To send them to another group or channel, use <code>/settings alerts</code>.',
  alerts_bot_rights_lost:
    'ℹ️ I am no longer an admin in “{chat}” (or may not post there), so your alerts come to this chat again. Make me an admin there, then choose it again with <code>/settings alerts</code>.',
  alerts_user_rights_lost:
    'ℹ️ You are no longer an admin in “{chat}”, so your alerts cannot go there: they come to this chat again. Once you are an admin there again, choose it with <code>/settings alerts</code>.',

  // Lookups
  item_usage: 'Use <code>/item &lt;item_id&gt; [service]</code>.',
  event_usage: 'Use <code>/event &lt;event_id&gt; [service]</code>.',
  item_not_found: 'No opportunity with the id <code>{id}</code> was found.',
  event_not_found: 'No opportunities of the event <code>{id}</code> were found.',
  lookup_reason: '({reason})',
  lookup_need_service: 'Name the service too (you have no filters yet), like <code>/item a1 arbs_prematch</code>.',
  event_items: '📋 Event <code>{id}</code>: {n} {n#opportunity|opportunities}.',
  from_latest: 'ℹ️ The service did not answer this lookup, so this is from the latest list I hold.',
  more_items: '… and {n} more.',
  lookup_unshowable: '⚠️ {n} of these items came from the service with data I cannot show, so they were left out. Try again later.',

  // Alert buttons
  not_your_alert: 'This alert belongs to someone else, so its buttons are theirs.',
  ask_stake_amount: 'Send the amount to split (your bankroll is {bankroll}):',
  stake_try_again: 'Send another amount, or /cancel.',
  event_muted: 'This event is muted for 24 h.',
  filter_snoozed: '{service}: alerts snoozed until {until}.',

  // Inline mode
  inline_connect: 'Connect your key to see your opportunities',
  inline_nothing: 'Nothing matches: open the bot',

  // Secrets, caps and wait times
  secret_question_closed: 'ℹ️ I stopped waiting for your secret key: what you send now is not taken as one. Send /connect to connect a key.',
  secret_edit_deleted: 'I deleted your edited message, since I am waiting for your secret key. Send the secret as a new message, or /cancel.',
  secret_expected_first: 'I am waiting for your secret key (from /connect). Send it first, or /cancel, then press this button again.',
  connect_group_deleted: '🔐 I deleted a message with a secret key here: never post it in a group. Connect your key in a private chat with me: @{bot}',
  connect_group_not_deleted: '⚠️ A message here carries a secret key and I could not delete it: delete it now and change the secret. Connect keys only in a private chat with me: @{bot}',
  stake_asked_private: 'I asked for the amount in our private chat.',
  stake_private_unreachable: 'Open a private chat with me first (press Start there), then press this button again.',
  not_your_button: 'These buttons belong to someone else.',
  cap_connect: '⏳ You have made many key checks lately, and each one spends the service budget everyone shares. Nothing was saved; try /connect again in {wait}.',
  cap_lookup: '⏳ Too many lookups in a short time (they spend the service budget your alerts need). Try again in {wait}.',
  cap_filter: '⏳ Too many filter saves lately (each one spends the service budget your alerts need). Nothing was saved; try again in {wait}.',
  cap_inline: 'Too many searches: try again in {wait}',
  wait_s: '{n} {n#second|seconds}',
  wait_min: '{n} {n#minute|minutes}',

  // Forget
  forget_confirm: '⚠️ Delete your key, your filters, your settings and the alert history? This cannot be undone.',
  forget_done: '🗑 Done: everything I stored about you is deleted. /start begins again.',
  forget_kept: 'Nothing was deleted.',
  forget_expired: 'This confirmation has expired. Send /forget again.',
  forget_nothing: 'I have nothing stored about you.',

  // Bookmakers: commission, limits, steps, status (issue 22)
  cmd_books: 'Your bookmakers: commission, limits, steps, status',
  book_usage: 'One line: <code>/book &lt;bookmaker id or name&gt; [commission=N] [max=N] [min=N] [step=N] [status=ok|limited|closed]</code> (amounts in your currency, commission in %), or <code>/book &lt;bookmaker&gt; reset</code>. /books lists your bookmakers.',
  book_unknown: 'I know no bookmaker “{value}”. /books lists them with their ids.',
  book_ambiguous: 'Several bookmakers match: {names}. Send the id instead.',
  book_nothing_to_set: 'Nothing to change for {name}: add commission=N, max=N, min=N, step=N or status=ok|limited|closed, or “reset”.',
  book_reset_alone: '“reset” goes alone: <code>/book &lt;bookmaker&gt; reset</code>. Nothing was changed.',
  book_unknown_option: '“{value}” is not an option I know. Options: commission, max, min, step, status. Nothing was changed.',
  book_option_twice: '{value} is given twice. Give each option once; nothing was changed.',
  book_bad_status: '“{value}” is not a status: use ok, limited or closed. Nothing was changed.',
  book_bad_commission: 'Commission is a percentage from 0 to {max}. Nothing was changed.',
  book_bad_amount: '{option} must be a positive amount in your currency, to the cent. Nothing was changed.',
  book_min_over_max: 'The minimum ({min}) would be over the maximum ({max}). Nothing was changed.',
  book_saved: '✅ Saved for {name}: {parts}. Alerts from now on use it.',
  book_reset_done: '↺ {name}: back to the defaults.',
  books_title: '🏦 <b>Your bookmakers</b>',
  books_none: 'No settings yet.',
  books_line: '<b>{name}</b> ({id}): {parts}',
  books_commission: 'commission {value} %',
  books_commission_default: 'commission {value} % (assumed: check your account’s rate)',
  books_max: 'max {value}',
  books_min: 'min {value}',
  books_step: 'step {value}',
  books_status_ok: 'ok',
  books_status_limited: '⚠️ limited',
  books_status_closed: '⛔ closed: no alerts that need it',
  books_hint: 'Change one with <code>/book &lt;name&gt; max=300 step=5</code> or <code>/book &lt;name&gt; commission=2</code>; the buttons switch a status (ok → limited → closed) or reset. A max caps that leg’s stake (a lay leg’s liability); a closed bookmaker drops its alerts.',
  books_no_names: 'Bookmaker names are not available right now (the dictionaries could not be read). Try again in a minute.',
  btn_book_status: '{name}: {status}',
  btn_book_reset: '↺ {name}',
  book_button_done: '{name}: {status}',
  cmd_staking: 'How alerts split an arb: equal profit, or all on one leg',
  staking_usage: 'How alerts split an arb: <code>/staking equal</code> (the same profit whatever wins), <code>/staking high</code> (all profit on the leg with the highest odds, the others break even) or <code>/staking low</code> (on the lowest odds). Now: <b>{mode}</b>. Under one alert, ✏️ Leg limited → <code>2 profit</code> puts it on leg 2 for that alert only.',
  staking_saved: '✅ Alerts now split arbs: <b>{mode}</b>.',
  staking_equal: 'equal profit',
  staking_high: 'all profit on the highest odds',
  staking_low: 'all profit on the lowest odds',
  ask_leg_limit: 'Which leg did the bookmaker limit, and how much did it accept? Send the leg’s number and the amount, like <code>1 150</code>; <code>2 0</code> if it was rejected after the others were placed; <code>2 profit</code> for stakes with all the profit on leg 2.',
  leg_limit_bad: 'Send the leg’s number (1 to {n}) and the accepted amount, like <code>1 150</code>.',
  leg_rejected: '❌ Leg {leg} ({book}) rejected. With the other legs placed as the alert showed ({placed}), the break-even odds to hedge it are <b>{odds}</b>. Send the odds you can get for it now (like <code>1.95</code>) for the hedge stake.',
  leg_rejected_nothing: 'With the other legs as the alert showed, no odds would make a hedge break even: the placed legs return less than they cost.',
  hedge_result: 'Hedge leg {leg} ({book}) at {odds}: {stake}. Worst case after the hedge: <b>{worst}</b>{below}.',
  hedge_below: ' (below the break-even {odds}: a loss)',
  hedge_bad_odds: 'Send decimal odds above 1, like <code>1.95</code>.',
  hedge_lay_stake: 'lay {stake} · liability {liability}',

  // Admin
  stats_title: '📊 <b>Stats</b>',
  stats_line: '{name}: <b>{value}</b>',
} satisfies Record<string, string>;

export type MessageKey = keyof typeof en;
