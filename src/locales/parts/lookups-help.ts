/**
 * Messages of one area (lookups-help), in both languages: en.ts and ru.ts spread them in, so that work on
 * separate areas does not edit the same lines of the two big catalogs. Same rules as en.ts.
 */
export const lookupsHelpEn = {} satisfies Record<string, string>;

export const lookupsHelpRu: Record<keyof typeof lookupsHelpEn, string> = {};
