/**
 * Messages of one area (budget), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const budgetEn = {} satisfies Record<string, string>;

export const budgetRu: Record<keyof typeof budgetEn, string> = {};
