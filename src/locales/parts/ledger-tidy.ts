/**
 * Messages of one area (ledger-tidy: the CSV, currency, CLV of every leg, refused uploads, the
 * ledger's bounds and /archive), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const ledgerTidyEn = {
  cmd_archive: 'Move settled positions into a compressed file: /archive [period]',
  pnl_clv_legs: 'Arbs’ and middles’ legs CLV (odds taken vs each leg’s close): mean {mean} · stake-weighted {weighted} · beat the close {share} ({n})',
  pnl_chart_refused: '📈 The chart was drawn, but Telegram refused the picture ({reason}). The figures above are complete; /pnl again later may get the chart through.',
  export_refused:
    '⚠️ Your CSV is ready ({n} {n#row|rows}), but Telegram refused the file ({reason}). Get it another way: <code>/export {period} parts</code> sends it in smaller files, <code>/export {period} text</code> as messages to copy.',
  export_part_caption: '🧾 Your ledger ({period}), part {i} of {k}: each part has the header row.',
  export_text_head: '🧾 Your ledger ({period}) as text, {i} of {k}: copy the lines into a .csv file.',
  export_too_long_text: 'Your ledger for this period is {kb} KB of CSV: too long to send as messages (up to {max} KB). Pick a shorter period, like <code>/export 7d text</code>, or ask for <code>/export {period} parts</code>.',
  export_too_many_parts: 'Your ledger for this period would take {k} files: more than {max}. Pick a shorter period, like <code>/export 2026-11 parts</code>, or move old positions out with /archive.',
  ledger_report_capped: '⏳ That was {n} ledger reports (/pnl, /export, /archive) in {window}; the next one is possible in {wait}. Alerts and everything else work as usual.',
  ledger_full:
    '📚 Your ledger holds {max} positions, the most it keeps, so this one was not recorded. Save what you need with /export all, then move settled positions out with <code>/archive &lt;period&gt;</code> (for example <code>/archive 2026-10</code> or <code>/archive all</code>): you get them as a compressed CSV file, and room for new ones.',
  archive_usage:
    'Send /archive with a period of settled positions to move out of your ledger: 7d, 30d, month, all, or a month like <code>2026-11</code>. You get them as a compressed CSV file (.csv.gz); /pnl and /export no longer count them. Unsettled positions stay.',
  archive_empty: 'No settled positions in this period, so there is nothing to archive. Unsettled positions stay in /open.',
  archive_caption: '🗄 Archived {n} settled {n#position|positions} ({period}): they are out of your ledger now, and in this file only. Keep it: /pnl and /export no longer count them.',
  archive_refused: 'Telegram refused the archive file ({reason}), so nothing was moved: every position is still in your ledger. Try again later or with a shorter period.',
  settings_currency_saved: '✅ Currency: {code}. /open, /pnl and /export show it beside amounts.',
  settings_currency_cleared: '✅ No currency: amounts are shown as plain numbers.',
  settings_currency_bad:
    '“{value}” is not a currency code. Send three letters, like <code>/settings currency EUR</code> (or USD, GBP, RUB); <code>/settings currency none</code> removes it. Nothing was changed.',
  upload_refused_unknown: 'no reason given',
} satisfies Record<string, string>;

export const ledgerTidyRu: Record<keyof typeof ledgerTidyEn, string> = {
  cmd_archive: 'Перенести рассчитанные позиции в сжатый файл: /archive [период]',
  pnl_clv_legs: 'CLV плеч вилок и коридоров (взятый коэффициент против закрытия этого плеча): среднее {mean} · взвешенное по ставкам {weighted} · лучше закрытия {share} ({n})',
  pnl_chart_refused: '📈 График построен, но Telegram не принял картинку ({reason}). Цифры выше полные; /pnl позже может пройти с графиком.',
  export_refused:
    '⚠️ CSV готов ({n} {n#строка|строки|строк}), но Telegram не принял файл ({reason}). Получите его иначе: <code>/export {period} parts</code> пришлёт его файлами поменьше, <code>/export {period} text</code> — сообщениями для копирования.',
  export_part_caption: '🧾 Ваш журнал ({period}), часть {i} из {k}: в каждой части есть строка заголовков.',
  export_text_head: '🧾 Ваш журнал ({period}) текстом, {i} из {k}: скопируйте строки в файл .csv.',
  export_too_long_text: 'Журнал за этот период — {kb} КБ CSV: слишком длинно для сообщений (до {max} КБ). Выберите период короче, например <code>/export 7d text</code>, или запросите <code>/export {period} parts</code>.',
  export_too_many_parts: 'Журнал за этот период занял бы {k} файлов: больше {max}. Выберите период короче, например <code>/export 2026-11 parts</code>, или перенесите старые позиции в архив командой /archive.',
  ledger_report_capped: '⏳ Это уже {n} отчётов журнала (/pnl, /export, /archive) за {window}; следующий можно через {wait}. Сигналы и всё остальное работают как обычно.',
  ledger_full:
    '📚 В журнале {max} позиций — больше он не хранит, поэтому эта позиция не записана. Сохраните нужное командой /export all, затем перенесите рассчитанные позиции в архив: <code>/archive &lt;период&gt;</code> (например <code>/archive 2026-10</code> или <code>/archive all</code>). Вы получите их сжатым CSV-файлом, а в журнале освободится место.',
  archive_usage:
    'Отправьте /archive с периодом рассчитанных позиций, которые нужно убрать из журнала: 7d, 30d, month, all или месяц, например <code>2026-11</code>. Вы получите их сжатым CSV-файлом (.csv.gz); /pnl и /export перестанут их учитывать. Нерассчитанные позиции останутся.',
  archive_empty: 'За этот период нет рассчитанных позиций — архивировать нечего. Нерассчитанные позиции остаются в /open.',
  archive_caption: '🗄 В архиве {n} {n#рассчитанная позиция|рассчитанные позиции|рассчитанных позиций} ({period}): из журнала они убраны и есть только в этом файле. Сохраните его: /pnl и /export их больше не учитывают.',
  archive_refused: 'Telegram не принял файл архива ({reason}), поэтому ничего не перенесено: все позиции остались в журнале. Попробуйте позже или с периодом короче.',
  settings_currency_saved: '✅ Валюта: {code}. /open, /pnl и /export показывают её рядом с суммами.',
  settings_currency_cleared: '✅ Валюта не указана: суммы показываются просто числами.',
  settings_currency_bad:
    '«{value}» — не код валюты. Отправьте три латинские буквы, например <code>/settings currency EUR</code> (или USD, GBP, RUB); <code>/settings currency none</code> убирает валюту. Ничего не изменено.',
  upload_refused_unknown: 'без объяснения причины',
};
