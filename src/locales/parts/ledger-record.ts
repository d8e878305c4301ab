/**
 * Messages of one area (ledger-record), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const ledgerRecordEn = {} satisfies Record<string, string>;

export const ledgerRecordRu: Record<keyof typeof ledgerRecordEn, string> = {};
