/**
 * Messages of one area (words), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const wordsEn = {
  // /books: a status button names the status it sets, verb first, so it never reads as the state.
  btn_book_set_ok: 'Set ✅ ok: {name}',
  btn_book_set_limited: 'Set ⚠️ limited: {name}',
  btn_book_set_closed: 'Set ⛔ closed: {name}',
  // A button under an alert pressed after /forget (callback answers: plain text, at most 200 characters).
  // /status inside quiet hours ("Last alert" counts only alerts sent, so this says where the others are).
  status_quiet_on: '🌙 Quiet hours are on ({from}–{to}): alerts are held until {until}, then come in one summary with their ids and buttons. “Last alert” below counts only alerts sent.',
  alert_data_deleted: 'You deleted your data with /forget, so this older alert’s buttons do nothing now. /connect to start again.',
} satisfies Record<string, string>;

export const wordsRu: Record<keyof typeof wordsEn, string> = {
  btn_book_set_ok: 'Сделать ✅ ok: {name}',
  btn_book_set_limited: 'Сделать ⚠️ порезан: {name}',
  btn_book_set_closed: 'Сделать ⛔ закрыт: {name}',
  status_quiet_on: '🌙 Сейчас тихие часы ({from}–{to}): оповещения ждут до {until}, потом придут одной сводкой с их id и кнопками. «Последнее оповещение» ниже считает только отправленные.',
  alert_data_deleted: 'Вы удалили свои данные командой /forget, поэтому кнопки этого старого сигнала больше не действуют. /connect — начать заново.',
};
