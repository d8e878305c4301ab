/**
 * Filters that can never alert, said before they are saved (and in /status): an arb or a middle
 * at one bookmaker, odds capped where no arb can exist, a live filter with no live bookmaker.
 * Each rule is a certainty, not a guess: a filter that is merely narrow gets no warning.
 */
import { escapeHtml } from '../../lib/html.js';
import { html, type Translate } from '../../locales/i18n.js';
import type { Names } from '../../service/dictionaries-model.js';
import type { FilterSettings } from '../../service/filter-model.js';
import { isLive, kindOf, type Service } from '../../service/services.js';
import { fmtNum } from './filter-text.js';
import { clipName } from './plain.js';

/**
 * The reasons `settings` can never match an item of `service` (HTML lines, empty when it can).
 * `liveBookmakers`: the dictionaries' live list, when known.
 */
export function neverMatches(service: Service, settings: FilterSettings, t: Translate, names: Names, liveBookmakers?: readonly number[]): string[] {
  const kind = kindOf(service);
  const warnings: string[] = [];
  const books = settings.bookmakers;
  const [only] = books;
  if (kind !== 'valuebets' && books.length === 1 && only !== undefined) {
    warnings.push(t(kind === 'arbs' ? 'warn_one_bookmaker_arb' : 'warn_one_bookmaker_middle', { name: clipName(names.bookmaker(only)) }));
  }
  // An arb needs 1/o1 + 1/o2 + … < 1, so some leg above 2; a middle that gains when it misses too.
  const max = settings.maxOdds;
  if (max !== null && max <= 2) {
    if (kind === 'arbs') warnings.push(t('warn_arb_odds', { max: fmtNum(max) }));
    else if (kind === 'middles' && settings.minProfit > 0) warnings.push(t('warn_middle_odds', { max: fmtNum(max) }));
  }
  if (isLive(service) && books.length > 0 && liveBookmakers && liveBookmakers.length > 0 && !books.some((b) => liveBookmakers.includes(b))) {
    const list = books.slice(0, 5).map((b) => escapeHtml(clipName(names.bookmaker(b))));
    warnings.push(t('warn_no_live_bookmaker', { list: html(list.join(', ')) }));
  }
  return warnings;
}
