/**
 * A bookmaker typed in an answer (a hedge placed elsewhere: "1.57 628 Marathon"), read by the one
 * reader of typed bookmakers (`findBookmaker`, as /book reads them) so it is the dictionaries'
 * bookmaker ("Marathonbet"), not a new one that splits /open, /pnl and the CSV in two (#25 of the
 * newcomer trial). A name the dictionaries do not know, or a near miss, is answered with what it
 * could be; sending the same line again confirms it as a bookmaker of its own. The question keeps
 * only a digest of the unconfirmed name: a pending question never holds what a user pasted.
 */
import { createHash } from 'node:crypto';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import type { PendingInput } from '../pending.js';
import { nameKey } from '../parse/dict-names.js';
import { findBookmaker } from '../parse/book-args.js';
import { clipEcho } from '../parse/values.js';
import { dictionariesFor } from '../ui/cards.js';

type LedgerLegInput = Extract<PendingInput, { kind: 'ledger-leg' }>;

/** What a question keeps of an unconfirmed name (also /add's guided bookmaker). */
export const digestOf = (typed: string): string => createHash('sha256').update(nameKey(typed) || typed).digest('hex').slice(0, 16);

/**
 * The bookmaker to record for `typed`: the dictionaries' name, or `typed` itself when the user
 * confirmed it (or no dictionaries are loaded to check against). Undefined when the user was
 * asked instead; the question stays open.
 */
export async function matchTypedBookmaker(rt: BotRuntime, ctx: BotContext, typed: string, pending: LedgerLegInput): Promise<string | undefined> {
  const dicts = await dictionariesFor(rt, ctx.lang);
  if (!dicts || Object.keys(dicts.bookmakers).length === 0) return typed;
  const english = ctx.lang === 'en' ? undefined : rt.client.cachedDictionaries('en')?.bookmakers;
  const found = findBookmaker(typed, dicts.bookmakers, english);
  if (found.ok) return found.value.name;
  const digest = digestOf(typed);
  if (pending.newBookmaker === digest) return typed;
  if (ctx.chat && ctx.from) await rt.pending.set(ctx.chat.id, ctx.from.id, { ...pending, newBookmaker: digest });
  const problem = found.problem.key === 'book_usage' ? '' : `${ctx.t(found.problem.key, found.problem.vars)}\n`;
  await ctx.reply(`${problem}${ctx.t('hedge_book_confirm_new', { value: clipEcho(typed) })}`);
  return undefined;
}
