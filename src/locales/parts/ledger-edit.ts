/**
 * Messages of one area (ledger-edit), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const ledgerEditEn = {} satisfies Record<string, string>;

export const ledgerEditRu: Record<keyof typeof ledgerEditEn, string> = {};
