/**
 * Messages of one area (words), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const wordsEn = {
  // /books: a status button names the status it sets, verb first, so it never reads as the state.
  btn_book_set_ok: 'Set ✅ ok: {name}',
  btn_book_set_limited: 'Set ⚠️ limited: {name}',
  btn_book_set_closed: 'Set ⛔ closed: {name}',
} satisfies Record<string, string>;

export const wordsRu: Record<keyof typeof wordsEn, string> = {
  btn_book_set_ok: 'Сделать ✅ ok: {name}',
  btn_book_set_limited: 'Сделать ⚠️ порезан: {name}',
  btn_book_set_closed: 'Сделать ⛔ закрыт: {name}',
};
