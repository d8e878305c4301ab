/**
 * Messages of one area (the Mini App's API errors), in both languages: en.ts and ru.ts spread them
 * in. Same rules as en.ts: each says what happened and what to do.
 */
export const miniappEn = {
  miniapp_err_unauthorized: 'Telegram did not vouch for this request. Close the app and open it again from the bot.',
  miniapp_err_expired: 'This session is too old. Close the app and open it again from the bot.',
  miniapp_err_bad_request: 'That request was not understood: {detail}. Reload the page and try again.',
  miniapp_err_not_found: 'Not found: {what}. Reload the page to see what is there now.',
  miniapp_err_method_not_allowed: 'This address does not take {method}.',
  miniapp_err_too_large: 'The request is too large (over {max} bytes). Send less at once.',
  miniapp_err_too_many: 'Too many requests in a minute. Wait a moment and try again.',
  miniapp_err_conflict: '{detail}',
  miniapp_err_internal: 'Something went wrong on the bot. Try again in a minute; if it stays, tell the bot’s operator.',
  miniapp_not_settleable: 'Position {id} cannot take that result (already settled, or the result does not fit its market). Reload to see it as it is.',
  miniapp_not_editable: 'Leg {n} of position {id} cannot be edited (no such leg, or it was refused).',
  miniapp_undo_refused: 'That change of position {id} can no longer be undone (a later change, or over {min} minutes ago).',
  miniapp_book_unknown: 'No bookmaker {value} in the dictionaries. Reload the page.',
  miniapp_filter_no_key: 'No key is connected: send /connect in the chat first, then save again.',
  miniapp_filter_capped: 'Too many filter saves this hour. Try again in about {min} min.',
  miniapp_filter_error: 'The service refused the filter ({kind}); nothing was saved. Try again later or check /status in the chat.',
};

export const miniappRu: Record<keyof typeof miniappEn, string> = {
  miniapp_err_unauthorized: 'Telegram не подтвердил этот запрос. Закройте приложение и откройте его снова из бота.',
  miniapp_err_expired: 'Сессия устарела. Закройте приложение и откройте его снова из бота.',
  miniapp_err_bad_request: 'Запрос не понят: {detail}. Обновите страницу и попробуйте снова.',
  miniapp_err_not_found: 'Не найдено: {what}. Обновите страницу, чтобы увидеть текущее состояние.',
  miniapp_err_method_not_allowed: 'Этот адрес не принимает {method}.',
  miniapp_err_too_large: 'Запрос слишком большой (больше {max} байт). Отправьте меньше за раз.',
  miniapp_err_too_many: 'Слишком много запросов за минуту. Подождите немного и повторите.',
  miniapp_err_conflict: '{detail}',
  miniapp_err_internal: 'В боте что-то пошло не так. Повторите через минуту; если не пройдёт — напишите оператору бота.',
  miniapp_not_settleable: 'Позиции {id} нельзя поставить этот результат (уже рассчитана или результат не подходит к рынку). Обновите страницу.',
  miniapp_not_editable: 'Ногу {n} позиции {id} нельзя изменить (нет такой ноги или её не приняли).',
  miniapp_undo_refused: 'Это изменение позиции {id} уже нельзя отменить (было более позднее или прошло больше {min} минут).',
  miniapp_book_unknown: 'Букмекера {value} нет в справочниках. Обновите страницу.',
  miniapp_filter_no_key: 'Ключ не подключён: сначала отправьте /connect в чате, затем сохраните снова.',
  miniapp_filter_capped: 'Слишком много сохранений фильтра за час. Повторите примерно через {min} мин.',
  miniapp_filter_error: 'Сервис отклонил фильтр ({kind}); ничего не сохранено. Повторите позже или проверьте /status в чате.',
};
