/**
 * Fetches the dictionaries at start (the cache file spares the request after a restart). The
 * bot starts either way: without names, alerts show ids until a later try works, and one line
 * says so. Tries again every 15 minutes while a language has no copy. Every role needs them: the
 * front for the filter dialogs and cards, a worker for the alerts it formats.
 */
import type { Logger } from '../logger.js';
import type { ServiceClient } from '../service/client-types.js';
import { DICT_LANGS } from '../service/dictionaries.js';

/** After a failed dictionaries fetch at start, how often to try again until one works. */
const DICTIONARIES_RETRY_MS = 15 * 60_000;

/** Starts the watch; clear the returned timer at stop. */
export function watchDictionaries(client: ServiceClient, url: string, logger: Logger): NodeJS.Timeout {
  const missing = () => DICT_LANGS.filter((lang) => client.cachedDictionaries(lang) === undefined);
  const attempt = async (first: boolean) => {
    // The cache logs a failed fetch itself and resolves without a copy; a rejection here would be
    // something else, so it is logged too rather than dropped.
    for (const lang of missing()) await client.dictionaries(lang).catch((err: unknown) => logger.warn({ err, lang }, 'fetching the dictionaries failed'));
    const still = missing();
    if (still.length > 0 && first) {
      logger.warn(
        { languages: still },
        `BB_DICTS_URL: the dictionaries host ${url} could not be reached at start: started anyway (alerts show ids for names); trying again every 15 minutes`,
      );
    } else if (still.length === 0 && !first) {
      logger.info('dictionaries fetched after all');
    }
  };
  void attempt(true);
  const timer = setInterval(() => {
    if (missing().length > 0) void attempt(false);
  }, DICTIONARIES_RETRY_MS);
  timer.unref();
  return timer;
}
