/**
 * Messages of one area (alert-once: no push for what is no arb, one message per arb, filters by
 * market and by sport), in both languages: en.ts and ru.ts spread them in, so that work on separate
 * areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const alertOnceEn = {
  // The headline of an arb with no winning stakes on the user's steps and caps (plain text: the formatter escapes it).
  alert_not_arb_title: 'Not an arb for you: {pct}',
  // Under the headline of an alert revived after "Gone" (plain text: the formatter escapes it).
  alert_back_after: '🔁 back after {duration}',
  // One message for the many items of the first read after a filter is saved or resumed (HTML: {lines} is the bot's own).
  alert_first_summary:
    '📋 <b>{n} {n#opportunity|opportunities} open now</b> for {service} — best {best}. One message instead of {n} alerts; new ones from now on come one by one.\n\n{lines}\n\nTap a number to open it with its stakes, or open them all.',
  alert_first_summary_more: '… and {n} more: /event or inline (@ in any chat) shows them.',
  btn_first_summary_all: '📂 Open all {n}',
  first_summary_all_gone: 'None of them is open any more: they are gone.',
} satisfies Record<string, string>;

export const alertOnceRu: Record<keyof typeof alertOnceEn, string> = {
  alert_not_arb_title: 'Для вас не вилка: {pct}',
  alert_back_after: '🔁 снова здесь через {duration}',
  alert_first_summary:
    '📋 <b>Сейчас {n#открыта|открыты|открыто} {n} {n#возможность|возможности|возможностей}</b> в «{service}» — лучшая {best}. Одно сообщение вместо {n} оповещений; новые дальше придут по одной.\n\n{lines}\n\nНажмите номер, чтобы открыть её со ставками, или откройте все.',
  alert_first_summary_more: '… и ещё {n}: их покажут /event или inline (@ в любом чате).',
  btn_first_summary_all: '📂 Открыть все {n}',
  first_summary_all_gone: 'Ни одной из них уже нет: они исчезли.',
};
