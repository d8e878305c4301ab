/**
 * /item <item_id> [service] and /event <event_id> [service]: full cards from the service or the
 * latest list; without an id, the bot asks for it (a pending question); a name in place of the id
 * ("/event Chelsea") is searched in the user's current opportunities (lookup-names.ts).
 */
import type { AlertView } from '../../alerts/format.js';
import { Composer } from 'grammy';
import { alertButtons } from '../../alerts/alert-buttons.js';
import { alertTexts } from '../../alerts/alert-texts.js';
import { formatCard } from '../../alerts/format.js';
import { fmtMoney, fmtOdds, printedOdds, withUnit } from '../../alerts/printed.js';
import type { Opportunity } from '../../service/opportunity.js';
import { html } from '../../locales/i18n.js';
import { clipText } from '../../lib/html.js';
import { parseService, type Service } from '../../service/services.js';
import { lookup, type LookupRequest, type LookupResult } from '../actions/lookup.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { clipEcho, clipId, parseId } from '../parse/values.js';
import { leaveFlows } from '../flows.js';
import { freshness, keepPrint, namesForLang, viewFor } from '../ui/cards.js';
import { errorInWords } from '../ui/filter-text.js';
import { quietly } from '../ui/quietly.js';
import { answerNameQuery, isNameQuery } from './lookup-names.js';
import { serviceLabel } from '../../locales/services.js';
import { waitWords } from '../ui/time-words.js';

/** At most this many cards answer one lookup (the rest are counted). */
export const MAX_CARDS = 5;

/** Sends the answer to a lookup: the cards, or why there are none. */
export async function sendLookupResult(
  rt: BotRuntime,
  ctx: BotContext,
  req: LookupRequest,
  result: LookupResult,
  bankroll?: number,
  /** Legs fixed at what a bookmaker accepted ("✏️ Leg limited"), all profit on one leg, or equal profit: how to stake this answer. */
  staking?: Pick<AlertView, 'fixedLegs' | 'profitOn' | 'stakingMode'>,
): Promise<void> {
  const t = ctx.t;
  switch (result.kind) {
    case 'no_key':
      await ctx.reply(t('need_key'));
      return;
    case 'capped':
      await ctx.reply(t('cap_lookup', { wait: waitWords(result.waitMs, t) }));
      return;
    case 'could_not_look': {
      const vars = { id: clipId(req.id), reason: html(errorInWords(result.reason, t)) };
      if (result.userShare) {
        await ctx.reply(t('lookup_user_share', { id: vars.id, wait: waitWords(result.waitMs ?? 60_000, t) }));
        return;
      }
      await ctx.reply(
        result.waitMs === undefined ? t('lookup_not_asked', vars) : t('lookup_not_asked_wait', { ...vars, wait: waitWords(result.waitMs, t) }),
      );
      return;
    }
    case 'need_service':
      await ctx.reply(t('lookup_need_service'));
      return;
    case 'not_found':
      await ctx.reply(t(req.what === 'item' ? 'item_not_found' : 'event_not_found', { id: clipId(req.id) }));
      return;
    case 'partly': {
      const labels = (services: Service[]) => services.map((s) => serviceLabel(s, t)).join(', ');
      const vars = {
        searched: labels(result.searched),
        unasked: labels(result.unasked),
        unasked_n: result.unasked.length,
        reason: html(errorInWords(result.reason, t)),
      };
      await ctx.reply(result.waitMs === undefined ? t('lookup_partly', vars) : t('lookup_partly_wait', { ...vars, wait: waitWords(result.waitMs, t) }));
      return;
    }
    case 'found': {
      const names = await namesForLang(rt, ctx.lang);
      const [first] = result.items;
      // A valuebet is one bet: "another amount" is that bet's stake, said above the card (whose
      // Kelly line stays about the bankroll); an arb's or middle's card splits the amount itself.
      const oneBet = bankroll !== undefined && first?.kind === 'valuebets' ? valuebetStakeLine(t, first, bankroll, ctx.user?.currency ?? '') : undefined;
      const view: AlertView = { ...viewFor(ctx.user, ctx.lang, rt.clock.now(), oneBet === undefined ? bankroll : undefined, freshness(rt, ctx.user)), ...staking };
      const notes: string[] = oneBet === undefined ? [] : [oneBet];
      if (req.what === 'event') {
        // Named by its teams, as everywhere else; the id stays for /event.
        const teams = first ? `${clipText(first.event.team1, 64)} — ${clipText(first.event.team2, 64)}` : req.id;
        notes.push(t('event_items', { teams, id: req.id, n: result.items.length }));
      }
      if (result.source === 'latest') notes.push(t('from_latest'));
      if (result.items.length > MAX_CARDS) notes.push(t('more_items', { n: result.items.length - MAX_CARDS }));
      if (notes.length > 0) await ctx.reply(notes.join('\n'));
      let unshown = 0;
      for (const item of result.items.slice(0, MAX_CARDS)) {
        // One item the formatter cannot draw costs only its own card.
        let card: string;
        try {
          card = formatCard(item, names, view);
        } catch (err) {
          rt.logger.warn({ err, itemId: item.id, service: item.service }, 'an item could not be drawn as a card; left out');
          unshown += 1;
          continue;
        }
        // The alert's buttons under its card too (placed, other amount, leg limited, mute, snooze):
        // a digest line leads here, and from here the user places, re-solves or mutes it.
        // Not under a card for another amount or re-solved stakes: "✅ Placed" there would record the bankroll's stakes.
        const plain = bankroll === undefined && staking === undefined;
        // What the card prints is kept, so its ✅ records that card for a week, whatever the item does.
        const printId = plain ? keepPrint(rt, ctx, item, names, view) : undefined;
        const rows = plain ? alertButtons(item, alertTexts(ctx.lang), 'new', printId) : [];
        const keyboard = rows.map((row) => row.map((b) => ({ text: b.text, callback_data: b.callbackData })));
        await ctx.reply(card, { link_preview_options: { is_disabled: true }, ...(keyboard.length > 0 ? { reply_markup: { inline_keyboard: keyboard } } : {}) });
      }
      if (unshown > 0) await ctx.reply(t('lookup_unshowable', { n: unshown }));
    }
  }
}

type LookupWhat = 'item' | 'event';

/**
 * Runs /item or /event with its words (id and optional service, or a name and optional service).
 * False when the words were not usable: the reason was said, nothing was read.
 */
async function runLookup(rt: BotRuntime, ctx: BotContext, what: LookupWhat, text: string, again: string): Promise<boolean> {
  const args = text.trim().split(/\s+/).filter(Boolean);
  // "Chelsea" or "Real Madrid arbs_live": a name, searched in the user's current opportunities.
  const last = args.length > 1 ? parseService(args[args.length - 1]!) : undefined;
  const name = last ? args.slice(0, -1).join(' ') : args.join(' ');
  if (isNameQuery(name)) {
    await answerNameQuery(rt, ctx, name, last);
    return true;
  }
  if (args.length > 2) {
    await ctx.reply(again);
    return false;
  }
  const id = parseId(args[0] ?? '');
  if (!id.ok) {
    await ctx.reply(`${ctx.t(id.problem.key, id.problem.vars)}\n\n${again}`);
    return false;
  }
  let service: Service | undefined;
  if (args[1] !== undefined) {
    service = parseService(args[1]);
    if (!service) {
      await ctx.reply(`${ctx.t('unknown_service', { value: clipEcho(args[1]) })}\n\n${again}`);
      return false;
    }
  }
  await quietly(ctx.log, 'showing "typing"', () => ctx.replyWithChatAction('typing'));
  const req: LookupRequest = { what, id: id.value, service };
  await sendLookupResult(rt, ctx, req, await lookup(rt, ctx.user, req));
  return true;
}

/** The id typed after a bare /item or /event: looked up, or the question stays open with the reason. */
export async function acceptLookupId(rt: BotRuntime, ctx: BotContext, text: string, what: LookupWhat): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  if (text.trim() === '') {
    await ctx.reply(ctx.t(what === 'item' ? 'ask_item_id' : 'ask_event_id'));
    return;
  }
  const chatId = ctx.chat.id;
  const userId = ctx.from.id;
  if (await runLookup(rt, ctx, what, text, ctx.t('lookup_id_again'))) await rt.pending.clear(chatId, userId);
}

/** "A bet of 1000 at 2.10 returns 2100 if it wins (+1100)", from the printed odds; undefined when they are hidden. */
function valuebetStakeLine(t: BotContext['t'], item: Opportunity, amount: number, currency: string): string | undefined {
  const odds = item.legs[0]?.odds;
  if (item.masked || odds === undefined || odds === null || !Number.isFinite(odds) || odds <= 1) return undefined;
  const shown = printedOdds(odds);
  const payout = amount * shown;
  return t('stake_used_valuebet', {
    amount: withUnit(fmtMoney(amount, { whole: true }), currency),
    odds: fmtOdds(odds),
    payout: withUnit(fmtMoney(payout), currency),
    profit: withUnit(fmtMoney(payout - amount, { signed: true }), currency),
  });
}

export function lookupFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  const handle = (what: LookupWhat) => async (ctx: BotContext & { match: string }) => {
    const args = ctx.match.trim().split(/\s+/).filter(Boolean);
    const usage = ctx.t(what === 'item' ? 'item_usage' : 'event_usage');
    if (args.length === 0) {
      // Like every other command without its words: a question instead of a usage line.
      if (!ctx.chat || !ctx.from) return;
      await leaveFlows(rt, ctx, { quiet: true });
      if (!ctx.user?.key) {
        await ctx.reply(ctx.t('need_key'));
        return;
      }
      await rt.pending.set(ctx.chat.id, ctx.from.id, { kind: 'lookup-id', what });
      await ctx.reply(ctx.t(what === 'item' ? 'ask_item_id' : 'ask_event_id'));
      return;
    }
    await runLookup(rt, ctx, what, ctx.match, usage);
  };

  composer.command('item', handle('item'));
  composer.command('event', handle('event'));
  return composer;
}
