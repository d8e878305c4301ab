/** Cards of opportunities for the user: names from the cached dictionaries, the user's view. */
import type { AlertView } from '../../alerts/format.js';
import type { Lang } from '../../locales/i18n.js';
import { namesFor, type Dictionaries, type Names } from '../../service/dictionaries-model.js';
import type { UserRecord } from '../../store/schema.js';
import type { BotRuntime } from '../deps.js';
import { staleAfterFor, staleDefaultsOf } from '../../alerts/loudness.js';
import type { BotContext } from '../context.js';
import type { Opportunity } from '../../service/opportunity.js';
import { printOf } from '../../alerts/alert-print.js';

/** The dictionaries in `lang`: the cached copy, else one fetch; undefined when unavailable. */
export async function dictionariesFor(rt: BotRuntime, lang: Lang): Promise<Dictionaries | undefined> {
  const cached = rt.client.cachedDictionaries(lang);
  if (cached) return cached;
  try {
    return await rt.client.dictionaries(lang);
  } catch (err) {
    rt.logger.warn({ err }, 'dictionaries unavailable');
    return undefined;
  }
}

export async function namesForLang(rt: BotRuntime, lang: Lang): Promise<Names> {
  return namesFor(await dictionariesFor(rt, lang), lang);
}

/** How fresh a card's legs read: the service's clock as measured, and the user's stale-leg limits. */
export function freshness(rt: Pick<BotRuntime, 'client' | 'config'>, user: Readonly<UserRecord> | undefined): Pick<AlertView, 'serviceOffsetMs' | 'staleAfter'> {
  return {
    serviceOffsetMs: rt.client.serviceClockOffsetMs?.() ?? 0,
    staleAfter: staleAfterFor(user ?? { staleLegSeconds: {} }, staleDefaultsOf(rt.config)),
  };
}

/** How the user sees cards: their language, zone, bankroll (or another amount) and rounding; `fresh` for the legs' ages. */
export function viewFor(user: Readonly<UserRecord> | undefined, lang: Lang, now: number, bankroll?: number, fresh?: Pick<AlertView, 'serviceOffsetMs' | 'staleAfter'>): AlertView {
  return {
    ...fresh,
    lang,
    timeZone: user?.timeZone ?? 'UTC',
    bankroll: bankroll ?? user?.bankroll ?? 100,
    roundingStep: user?.roundingStep ?? 1,
    now,
    ...(user?.currency != null && { currency: user.currency }),
    // The user's bookmaker settings (commission, caps, steps): cards compute as the alerts do.
    ...(user ? { books: user.books, stakingMode: user.stakingMode } : {}),
    ...(bankroll !== undefined && { otherAmount: true }),
  };
}

/** Keeps what a card for the presser prints (src/ledger/prints.ts); its id, or undefined when nothing can be kept. */
export function keepPrint(rt: BotRuntime, ctx: Pick<BotContext, 'user'>, item: Opportunity, names: Names, view: AlertView): string | undefined {
  const user = ctx.user;
  if (!user) return undefined;
  try {
    const print = printOf(user.id, item, names, view, view.now);
    if (print) rt.store.prints.put(user.id, print);
    return print?.id;
  } catch (err) {
    rt.logger.warn({ err }, 'the print of a card could not be kept');
    return undefined;
  }
}

