/**
 * Messages of one area (ledger-record), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const ledgerRecordEn = {
  ledger_placed_button: '✅ Placed · #{id}',
  ledger_differently_button: '✏️ Placed differently',
  ledger_print_gone:
    'I keep nothing of this message for you: it was sent to someone else, or more than 7 days ago (a message can be recorded for 7 days after it was sent). Nothing was recorded; record the bet from a newer alert or card of yours.',
  ledger_placed_ask_stakes: '✅ Position #{id}: this message showed no stakes, so tell me what you placed on each leg (in our chat).',
  ledger_record_another: 'This message is already recorded as position #{id} (see /open). Did you place a second bet on it? Then record another position:',
  btn_ledger_record_another: '➕ Record another',
  ledger_leg_prompt_unprinted:
    '✏️ Position #{id}, leg {n} of {total}: {book} · {market} at <b>{odds}</b>.\nThe message showed no stake for you here. Send the stake you placed (e.g. <code>{typed}</code>), or the odds and the stake (e.g. <code>{odds} {typed}</code>).',
  ledger_leg_prompt_resolved:
    '✏️ Position #{id}, leg {n} of {total}: {book} · {market}\nRe-solved around the legs you sent: odds <b>{odds}</b>, stake <b>{stake}</b> (the message showed {printed}).\nSend the odds and the stake you got (e.g. <code>{odds} {typed}</code>), or tap a button.',
  btn_ledger_keep_resolved: '✅ {stake} as re-solved',
  btn_ledger_keep_suggested: '✅ {stake}',
  ledger_bad_leg_input_stake:
    '“{text}” is not a stake or odds and a stake. Send the stake (e.g. <code>100</code>) or the odds (above 1, up to 1000) and the stake (e.g. <code>2.05 100</code>); or /cancel. Nothing was changed.',
  ledger_resolve_none:
    'With those odds no stakes on your steps and caps give a guaranteed profit on the other legs, so I cannot re-solve them: the stakes the message showed are offered.',
} satisfies Record<string, string>;

export const ledgerRecordRu: Record<keyof typeof ledgerRecordEn, string> = {
  ledger_placed_button: '✅ Поставил · #{id}',
  ledger_differently_button: '✏️ Поставил иначе',
  ledger_print_gone:
    'Для вас по этому сообщению ничего не хранится: оно отправлено другому человеку или больше 7 дней назад (записать ставку можно 7 дней после отправки). Ничего не записано; запишите ставку из более нового своего сигнала или карточки.',
  ledger_placed_ask_stakes: '✅ Позиция #{id}: в этом сообщении не было сумм, напишите, сколько вы поставили на каждый исход (в нашем чате).',
  ledger_record_another: 'Это сообщение уже записано как позиция #{id} (см. /open). Сделали вторую ставку по нему? Тогда запишите ещё одну позицию:',
  btn_ledger_record_another: '➕ Записать ещё одну',
  ledger_leg_prompt_unprinted:
    '✏️ Позиция #{id}, исход {n} из {total}: {book} · {market} по <b>{odds}</b>.\nСуммы для вас в сообщении не было. Пришлите сумму ставки (например, <code>{typed}</code>) или коэффициент и сумму (например, <code>{odds} {typed}</code>).',
  ledger_leg_prompt_resolved:
    '✏️ Позиция #{id}, исход {n} из {total}: {book} · {market}\nПересчитано под присланные исходы: коэффициент <b>{odds}</b>, сумма <b>{stake}</b> (в сообщении было {printed}).\nПришлите коэффициент и сумму, которые получили (например, <code>{odds} {typed}</code>), или нажмите кнопку.',
  btn_ledger_keep_resolved: '✅ {stake} по пересчёту',
  btn_ledger_keep_suggested: '✅ {stake}',
  ledger_bad_leg_input_stake:
    '«{text}» — не сумма и не коэффициент с суммой. Пришлите сумму (например, <code>100</code>) или коэффициент (больше 1, до 1000) и сумму (например, <code>2.05 100</code>); или /cancel. Ничего не изменено.',
  ledger_resolve_none:
    'При таких коэффициентах никакие суммы на ваших шагах и лимитах не дают гарантированной прибыли на остальных исходах, поэтому пересчитать их нельзя: предлагаю суммы из сообщения.',
};
