/** The API's shapes, from the server's contract: types only, so the bundle carries no zod. */
export type {
  ApiPosition, BookRow, BookSaved, BooksView, Coverage, CsvSent, Day, EditBody, Filter, FilterSaved, FiltersView, Lang, LedgerQuery, LedgerView, Me,
  OpenLeg, PositionAnswer, SettleBody,
} from '../contract.js';
