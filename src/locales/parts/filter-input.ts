/**
 * Messages of one area (filter-input), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const filterInputEn = {} satisfies Record<string, string>;

export const filterInputRu: Record<keyof typeof filterInputEn, string> = {};
