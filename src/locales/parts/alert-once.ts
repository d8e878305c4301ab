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
} satisfies Record<string, string>;

export const alertOnceRu: Record<keyof typeof alertOnceEn, string> = {
  alert_not_arb_title: 'Для вас не вилка: {pct}',
  alert_back_after: '🔁 снова здесь через {duration}',
};
