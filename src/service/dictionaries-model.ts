/** The dictionaries as the bot uses them: id strings to names, in one language. */
export interface OddsType {
  titleShort: string;
  titleFull: string;
  lay: boolean;
  sectionId: number | undefined;
}

export interface Dictionaries {
  lang: string;
  bookmakers: Record<string, string>;
  liveBookmakers: number[];
  sports: Record<string, string>;
  oddsGroups: Record<string, string>;
  oddsSections: Record<string, string>;
  oddsTypes: Record<string, OddsType>;
  /** odds type id → its mirrored id (AH1 ↔ AH2). */
  reflections: Record<string, number>;
}

/** Readable names from the dictionaries, with a readable fallback for an unknown id. */
export interface Names {
  sport(id: number | undefined): string;
  bookmaker(id: number | undefined): string;
  /** The market of a leg: the odds type's title, with the line when there is one ("TO(2.5)"). */
  market(typeId: number, line: string): string;
  oddsType(typeId: number): OddsType | undefined;
  /** The name of an odds group (the match, a half, corners…), in the dictionaries' language. */
  oddsGroup(id: number): string | undefined;
}

const FALLBACK = {
  en: { sport: 'sport', bookmaker: 'bookmaker', market: 'market' },
  ru: { sport: 'спорт', bookmaker: 'букмекер', market: 'рынок' },
} as const;

export function namesFor(dicts: Dictionaries | undefined, lang: 'en' | 'ru'): Names {
  const fb = FALLBACK[lang];
  return {
    sport: (id) => (id === undefined ? `${fb.sport} ?` : (dicts?.sports[String(id)] ?? `${fb.sport} #${id}`)),
    bookmaker: (id) =>
      id === undefined ? `${fb.bookmaker} ?` : (dicts?.bookmakers[String(id)] ?? `${fb.bookmaker} #${id}`),
    oddsType: (typeId) => dicts?.oddsTypes[String(typeId)],
    oddsGroup: (id) => dicts?.oddsGroups[String(id)],
    market: (typeId, line) => {
      const type = dicts?.oddsTypes[String(typeId)];
      const title = type?.titleShort || type?.titleFull || `${fb.market} #${typeId}`;
      if (line === '') return title;
      return title.includes('%s') ? title.replace('%s', line) : `${title}(${line})`;
    },
  };
}
