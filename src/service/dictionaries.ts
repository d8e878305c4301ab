/**
 * Dictionaries (seed §4.4, service-api.md §6): fetched per language, parsed tolerantly, kept in
 * `DATA_DIR/dictionaries.json` with the time of each fetch so a restart does not fetch again,
 * and refreshed seldom enough that all languages together use at most a third of the daily
 * limit. Concurrent callers share one fetch; a failed refresh keeps serving the old copy.
 */
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Dispatcher } from 'undici';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Dictionaries, OddsType } from './dictionaries-model.js';
import { ServiceError, isServiceError } from './errors.js';
import { requireJson, sendRequest } from './http.js';
import type { Limits } from './limits.js';
import { dictionariesEndpoint } from './paths.js';
import { withRetries } from './retry.js';

/** A language the bot keeps dictionaries in. */
export type DictLang = 'en' | 'ru';
/** The languages the bot speaks, hence the dictionaries it keeps. */
export const DICT_LANGS: readonly DictLang[] = ['en', 'ru'];
/** The cache file's name inside DATA_DIR. */
export const DICTIONARIES_FILE = 'dictionaries.json';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** After a failed refresh, the old copy is served this long (at most) before the next try. */
const FAILED_REFRESH_PAUSE_MS = 15 * 60_000;

/**
 * How old a language's copy may get: all languages together spend at most a third of
 * `limitPerDay` on scheduled refreshes (the rest covers retries and restarts); never under an hour.
 * 24 a day and 2 languages: every 6 hours.
 */
export function refreshIntervalMs(limitPerDay: number, langs = DICT_LANGS.length): number {
  return Math.max(HOUR, Math.ceil((DAY * langs * 3) / limitPerDay));
}

// ---- tolerant parsing ----------------------------------------------------------------------

const numeric = z.union([
  z.number().int(),
  z
    .string()
    .trim()
    .regex(/^\d+$/)
    .transform(Number),
]);
const nameOf = z.union([
  z.string(),
  z.number().transform(String),
  z.object({ name: z.string() }).loose().transform((o) => o.name),
  z.object({ title: z.string() }).loose().transform((o) => o.title),
]);
const idOf = z.union([z.string().trim().min(1), z.number().transform(String)]);
const rawOddsType = z
  .object({
    title_short: z.string().nullish(),
    title_full: z.string().nullish(),
    lay: z.union([z.boolean(), z.number().transform((n) => n !== 0)]).nullish(),
    section_id: numeric.nullish(),
  })
  .loose();

/** id → value from a map keyed by id, or from a list of objects carrying `id`. */
function entriesOf(value: unknown): [string, unknown][] {
  if (Array.isArray(value)) {
    const out: [string, unknown][] = [];
    for (const item of value) {
      if (!item || typeof item !== 'object') continue;
      const id = idOf.safeParse((item as { id?: unknown }).id);
      if (id.success) out.push([id.data, item]);
    }
    return out;
  }
  return value && typeof value === 'object' ? Object.entries(value) : [];
}

function nameMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [id, raw] of entriesOf(value)) {
    const name = nameOf.safeParse(raw);
    if (name.success && name.data.trim() !== '') out[id] = name.data.trim();
  }
  return out;
}

function oddsTypes(value: unknown): Record<string, OddsType> {
  const out: Record<string, OddsType> = {};
  for (const [id, raw] of entriesOf(value)) {
    if (typeof raw === 'string') {
      out[id] = { titleShort: raw, titleFull: raw, lay: false, sectionId: undefined };
      continue;
    }
    const parsed = rawOddsType.safeParse(raw);
    if (!parsed.success) continue;
    const short = parsed.data.title_short ?? parsed.data.title_full ?? '';
    const full = parsed.data.title_full ?? parsed.data.title_short ?? '';
    if (short === '' && full === '') continue;
    out[id] = { titleShort: short, titleFull: full, lay: parsed.data.lay ?? false, sectionId: parsed.data.section_id ?? undefined };
  }
  return out;
}

function reflections(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (Array.isArray(value) && value.every((pair) => Array.isArray(pair))) {
    for (const pair of value as unknown[][]) {
      const a = numeric.safeParse(pair[0]);
      const b = numeric.safeParse(pair[1]);
      if (a.success && b.success) out[String(a.data)] = b.data;
    }
    return out;
  }
  for (const [id, raw] of entriesOf(value)) {
    const direct = numeric.safeParse(raw);
    const nested =
      raw && typeof raw === 'object'
        ? numeric.safeParse((raw as { reflection_id?: unknown; id?: unknown }).reflection_id)
        : undefined;
    if (direct.success) out[id] = direct.data;
    else if (nested?.success) out[id] = nested.data;
  }
  return out;
}

function idList(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v) => {
    const id = numeric.safeParse(v);
    return id.success ? [id.data] : [];
  });
}

/** Reads a dictionaries answer; `ServiceError('malformed')` when it holds none of the main maps. */
export function parseDictionaries(body: unknown, lang: string, what: string): Dictionaries {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ServiceError('malformed', `${what}: the answer was not a set of dictionaries`);
  }
  const root = body as Record<string, unknown>;
  const data =
    root.data && typeof root.data === 'object' && !Array.isArray(root.data) ? (root.data as Record<string, unknown>) : root;
  const dicts: Dictionaries = {
    lang,
    bookmakers: nameMap(data.bookmakers),
    liveBookmakers: idList(data.live_bookmakers),
    sports: nameMap(data.sports),
    oddsGroups: nameMap(data.odds_groups),
    oddsSections: nameMap(data.odds_sections),
    oddsTypes: oddsTypes(data.odds_types),
    reflections: reflections(data.odds_types_reflections ?? data.reflections),
  };
  const sizes = [dicts.bookmakers, dicts.sports, dicts.oddsTypes].map((m) => Object.keys(m).length);
  if (sizes.every((n) => n === 0)) {
    throw new ServiceError('malformed', `${what}: the answer held no bookmakers, sports or odds types`);
  }
  return dicts;
}

// ---- the cache -----------------------------------------------------------------------------

const oddsTypeSchema = z
  .object({ titleShort: z.string(), titleFull: z.string(), lay: z.boolean(), sectionId: z.number().optional() })
  .transform((t): OddsType => ({ titleShort: t.titleShort, titleFull: t.titleFull, lay: t.lay, sectionId: t.sectionId }));
const dictionariesSchema = z.object({
  lang: z.string(),
  bookmakers: z.record(z.string(), z.string()),
  liveBookmakers: z.array(z.number()),
  sports: z.record(z.string(), z.string()),
  oddsGroups: z.record(z.string(), z.string()),
  oddsSections: z.record(z.string(), z.string()),
  oddsTypes: z.record(z.string(), oddsTypeSchema),
  reflections: z.record(z.string(), z.number()),
});
const cacheFileSchema = z.object({
  version: z.literal(1),
  langs: z.partialRecord(z.enum(['en', 'ru']), z.object({ fetchedAt: z.number(), dictionaries: dictionariesSchema })),
});
interface CacheEntry {
  fetchedAt: number;
  dictionaries: Dictionaries;
}
interface CacheFile {
  version: 1;
  langs: Partial<Record<DictLang, CacheEntry>>;
}

/** What the dictionary cache needs. */
export interface DictionaryCacheOptions {
  config: Pick<Config, 'BB_DICTS_URL' | 'BB_REQUEST_TIMEOUT_MS' | 'LIMIT_DICTS_PER_DAY' | 'DATA_DIR'>;
  limits: Limits;
  clock: Clock;
  logger: Logger;
  random: () => number;
  retries: number;
  dispatcher?: Dispatcher;
  /** The client's shutdown: ends a refresh (and its backoff) at once. */
  shutdown?: AbortSignal;
}

/** One fetch of `GET /v1/{lang}` (or `GET /v1` when `lang` is undefined) within the dictionaries limit. */
export async function fetchDictionaries(
  opts: Omit<DictionaryCacheOptions, 'random' | 'retries'>,
  lang: string | undefined,
  request: { wait?: boolean; priority?: 'interactive' | 'poll'; signal?: AbortSignal } = {},
): Promise<Dictionaries> {
  const { config, limits, clock, dispatcher } = opts;
  const scope = { kind: 'dicts' } as const;
  const what = lang === undefined ? 'dictionaries request' : `dictionaries request (${lang})`;
  const permit = await limits.acquire(scope, request);
  try {
    const res = await sendRequest({
      ...dictionariesEndpoint(config, lang),
      what,
      timeoutMs: config.BB_REQUEST_TIMEOUT_MS,
      now: () => clock.now(),
      ...(dispatcher ? { dispatcher } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    limits.recover(scope);
    return parseDictionaries(requireJson(res, what), lang ?? 'default', what);
  } catch (err) {
    throw limits.failed(scope, err);
  } finally {
    permit.release();
  }
}

/** Per-language dictionaries kept in memory and in `DATA_DIR/dictionaries.json`. */
export class DictionaryCache {
  private readonly entries = new Map<DictLang, CacheEntry>();
  private readonly inflight = new Map<DictLang, Promise<Dictionaries | undefined>>();
  /** Per language: no new try before this time (after a failure or a local refusal). */
  private readonly notBefore = new Map<DictLang, number>();
  private readonly file: string;
  private readonly intervalMs: number;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: DictionaryCacheOptions) {
    this.file = join(opts.config.DATA_DIR, DICTIONARIES_FILE);
    this.intervalMs = refreshIntervalMs(opts.config.LIMIT_DICTS_PER_DAY);
    this.load();
  }

  /** The copy held now, without any request. */
  cached(lang: DictLang): Dictionaries | undefined {
    return this.entries.get(lang)?.dictionaries;
  }

  /** When the copy of `lang` was fetched (ms), if there is one. */
  fetchedAt(lang: DictLang): number | undefined {
    return this.entries.get(lang)?.fetchedAt;
  }

  /** The copy, refreshed first when it is missing or older than the refresh interval. */
  get(lang: DictLang): Promise<Dictionaries | undefined> {
    const entry = this.entries.get(lang);
    const now = this.opts.clock.now();
    const fresh = entry !== undefined && now - entry.fetchedAt < this.intervalMs;
    if (fresh || now < (this.notBefore.get(lang) ?? 0)) return Promise.resolve(entry?.dictionaries);
    let shared = this.inflight.get(lang);
    if (!shared) {
      shared = this.refresh(lang).finally(() => this.inflight.delete(lang));
      this.inflight.set(lang, shared);
    }
    return shared;
  }

  /** Waits for the last write of the cache file. */
  async close(): Promise<void> {
    await this.writing;
  }

  private async refresh(lang: DictLang): Promise<Dictionaries | undefined> {
    const { clock, logger } = this.opts;
    try {
      const dictionaries = await withRetries(
        {
          retries: this.opts.retries,
          clock,
          random: this.opts.random,
          logger,
          what: `dictionaries (${lang})`,
          wait: false,
          ...(this.opts.shutdown ? { signal: this.opts.shutdown } : {}),
        },
        () => this.fetchWithFallback(lang),
      );
      const entry: CacheEntry = { fetchedAt: clock.now(), dictionaries };
      this.entries.set(lang, entry);
      this.notBefore.delete(lang);
      this.persist();
      logger.info({ lang, bookmakers: Object.keys(dictionaries.bookmakers).length }, 'dictionaries fetched');
      return dictionaries;
    } catch (err) {
      const retryAfter = isServiceError(err) ? (err.details.retryAfterMs ?? 0) : 0;
      this.notBefore.set(lang, clock.now() + Math.max(retryAfter, Math.min(FAILED_REFRESH_PAUSE_MS, this.intervalMs)));
      const old = this.entries.get(lang)?.dictionaries;
      logger.warn(
        { lang, kind: isServiceError(err) ? err.kind : 'unexpected', err, keptOldCopy: old !== undefined },
        'dictionaries refresh failed',
      );
      return old;
    }
  }

  /** `/v1/{lang}`; where the service has no such language, `/v1` stands in for it. */
  private async fetchWithFallback(lang: DictLang): Promise<Dictionaries> {
    // Never queue behind the daily limit: an old copy or the readable fallback names will do meanwhile.
    const request = { wait: false, priority: 'poll', ...(this.opts.shutdown ? { signal: this.opts.shutdown } : {}) } as const;
    try {
      return await fetchDictionaries(this.opts, lang, request);
    } catch (err) {
      if (!isServiceError(err) || err.kind !== 'not_found') throw err;
      return { ...(await fetchDictionaries(this.opts, undefined, request)), lang };
    }
  }

  private load(): void {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      // No cache yet is the first start; any other failure (a folder there, no permission) would
      // refetch on every start, spending the day's few dictionary reads, so the operator hears of it.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.opts.logger.warn({ err, file: this.file }, 'dictionaries cache could not be read; it will be fetched again');
      }
      return;
    }
    try {
      const parsed = cacheFileSchema.safeParse(JSON.parse(text));
      if (!parsed.success) throw new Error('unexpected shape');
      for (const lang of DICT_LANGS) {
        const entry = parsed.data.langs[lang];
        if (entry) this.entries.set(lang, entry);
      }
    } catch (err) {
      this.opts.logger.warn({ err, file: this.file }, 'dictionaries cache unreadable; it will be fetched again');
    }
  }

  private persist(): void {
    const snapshot: CacheFile = { version: 1, langs: Object.fromEntries(this.entries) };
    const tmp = `${this.file}.${process.pid}.tmp`;
    this.writing = this.writing
      .then(async () => {
        await mkdir(this.opts.config.DATA_DIR, { recursive: true });
        await writeFile(tmp, JSON.stringify(snapshot));
        await rename(tmp, this.file);
      })
      .catch((err: unknown) => this.opts.logger.warn({ err, file: this.file }, 'could not write the dictionaries cache'));
  }
}

