/**
 * The filter builder: service → sports → bookmakers → profit (or overvalue) → odds → hours to
 * start → summary with the coverage trade-off → one filter write. Every side effect runs in
 * `conversation.external`, since the builder is replayed on each update.
 */
import type { InlineKeyboardButton } from 'grammy/types';
import { html, translator, type Lang, type Translate } from '../../locales/i18n.js';
import type { ServiceCoverage } from '../../scheduler/port.js';
import { namesFor, type Dictionaries } from '../../service/dictionaries-model.js';
import { defaultFilter, type FilterSettings } from '../../service/filter-model.js';
import { isLive, kindOf, parseService, SERVICES, type Service } from '../../service/services.js';
import { saveFilter, type SaveOutcome } from '../actions/save-filter.js';
import type { ConvContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { HOURS_MAX, oddsRules, overvalueRules, profitRules } from '../parse/filter-args.js';
import { checkBounds, clipEcho, parsePercent, parsePositive, parseRange } from '../parse/values.js';
import { dictionariesFor } from '../ui/cards.js';
import { coverageList, coverageTradeOff, describeFilter, errorInWords, fmtNum, marketGroupName } from '../ui/filter-text.js';
import { serviceLabel } from '../../locales/services.js';
import { waitWords } from '../ui/time-words.js';
import { neverMatches } from '../ui/filter-warnings.js';
import { budgetRule, coverageLines, draftWhen, firstReadWords } from '../ui/budget-text.js';
import { multiSelect } from './multi-select.js';
import { MARKET_GROUPS, type MarketGroup } from '../../service/market-groups.js';
import { askValue } from './ask-value.js';
import { btn, closePrompt, keyboard, sendPrompt, waitAnswer, type Convo } from './prompt.js';
import { orderSports } from '../ui/sport-order.js';

export const FILTER_CONVERSATION = 'filter';

/** What /filter and the "edit" button pass in (JSON: conversations store their arguments). */
export interface FilterConversationArgs {
  lang: Lang;
  service?: Service;
  initial?: FilterSettings;
}

type Lists = {
  sports: [number, string][];
  bookmakers: [number, string][];
  live?: number[];
  /** The English names, for a user of another language (the service's own names, typed in any language). */
  english?: { sports: Record<string, string>; bookmakers: Record<string, string> };
} | null;

function sortedEntries(map: Record<string, string>, lang: Lang): [number, string][] {
  return Object.entries(map)
    .map(([id, name]): [number, string] => [Number(id), name])
    // A button carries the id as a whole number: one past 2^53 could not be told from its neighbours.
    .filter(([id]) => Number.isSafeInteger(id) && id >= 0)
    .sort((a, b) => a[1].localeCompare(b[1], lang));
}

function rangeLabel(min: number | null, max: number | null, unit: string): string {
  if (min === null && max === null) return '—';
  if (max === null) return `≥ ${fmtNum(min ?? 0)}${unit}`;
  return `${fmtNum(min ?? 0)}–${fmtNum(max)}${unit}`;
}

/** The key's token budget in words before a service is chosen: the rule, and the user's services now. */
function budgetBefore(rt: BotRuntime, userId: number, t: Translate): string {
  const user = rt.store.getUser(userId);
  const parts = [budgetRule(rt.config.LIMIT_TOKENS_PER_HOUR, t)];
  if (user) {
    const coverage = rt.scheduler.coverage(userId);
    const lines = coverageLines(coverage, user.serviceRank, t);
    if (lines !== '') parts.push(`${t('budget_now')}\n${lines}`);
  }
  return parts.join('\n\n');
}

async function chooseService(conversation: Convo, ctx: ConvContext, t: Translate, budget: string): Promise<Service> {
  const rows: InlineKeyboardButton[][] = [];
  for (let i = 0; i < SERVICES.length; i += 2) {
    rows.push(SERVICES.slice(i, i + 2).map((s) => btn(serviceLabel(s, t), { type: 'service', service: s })));
  }
  const promptId = await sendPrompt(ctx, `${t('fb_choose_service')}\n\n${budget}`, keyboard(rows));
  for (;;) {
    const answer = await waitAnswer(conversation, t, promptId);
    const service =
      answer.kind === 'button' ? (answer.button.type === 'service' ? answer.button.service : undefined) : parseService(answer.text);
    if (service) {
      await closePrompt(answer.ctx, promptId);
      await answer.ctx.reply(t('fb_chosen', { value: serviceLabel(service, t) }));
      return service;
    }
    if (answer.kind === 'text') await answer.ctx.reply(t('unknown_service', { value: clipEcho(answer.text) }));
  }
}

/** The conversation builder; `rt` is closed over, every use of it wrapped in `external`. */
export function createFilterConversation(rt: BotRuntime) {
  return async function filter(conversation: Convo, ctx: ConvContext, args: FilterConversationArgs): Promise<void> {
    const t = translator(args.lang);
    const userId = ctx.from?.id;
    if (userId === undefined) return;

    const hasKey = await conversation.external(() => Boolean(rt.store.getUser(userId)?.key));
    if (!hasKey) {
      await ctx.reply(t('need_key'));
      return;
    }

    const service = args.service ?? (await chooseService(conversation, ctx, t, await conversation.external(() => budgetBefore(rt, userId, t))));
    const editing = args.initial !== undefined;
    const settings: FilterSettings = { ...defaultFilter(), ...(args.initial ?? {}) };

    const lists: Lists = await conversation.external(async () => {
      const dicts = await dictionariesFor(rt, args.lang);
      if (!dicts) return null;
      const english = args.lang === 'en' ? undefined : rt.client.cachedDictionaries('en');
      return {
        sports: orderSports(sortedEntries(dicts.sports, args.lang)),
        bookmakers: sortedEntries(dicts.bookmakers, args.lang),
        live: dicts.liveBookmakers,
        ...(english ? { english: { sports: english.sports, bookmakers: english.bookmakers } } : {}),
      };
    });

    if (lists && lists.sports.length > 0) {
      settings.sports = await multiSelect(conversation, ctx, t, {
        title: t('fb_sports', { service: serviceLabel(service, t) }),
        options: lists.sports,
        selected: settings.sports,
        allLabel: t('all_sports'),
        ...(lists.english ? { aliases: lists.english.sports } : {}),
      });
    } else {
      await ctx.reply(t('fb_no_dicts'));
    }
    if (lists && lists.bookmakers.length > 0) {
      settings.bookmakers = await multiSelect(conversation, ctx, t, {
        title: t('fb_bookmakers'),
        options: lists.bookmakers,
        selected: settings.bookmakers,
        allLabel: t('all_bookmakers'),
        ...(lists.english ? { aliases: lists.english.bookmakers } : {}),
      });
    }

    if (kindOf(service) === 'valuebets') {
      const current = settings.minOvervalue;
      const buttons: { label: string; value: number | null }[] = [{ label: t('btn_any'), value: null }];
      if (editing && current !== null) buttons.push({ label: t('btn_keep', { value: `${fmtNum(current)} %` }), value: current });
      settings.minOvervalue = await askValue(conversation, ctx, t, t('fb_overvalue'), buttons, (text) => {
        const n = parsePercent(text, '3');
        if (!n.ok) return n;
        const r = checkBounds(n.value, null, overvalueRules);
        return r.ok ? { ok: true, value: r.value.min } : r;
      });
    } else {
      const rules = profitRules(service);
      const buttons = [{ label: t('btn_profit_default'), value: { min: 0, max: null as number | null } }];
      if (editing) {
        buttons.push({
          label: t('btn_keep', { value: rangeLabel(settings.minProfit, settings.maxProfit, ' %') }),
          value: { min: settings.minProfit, max: settings.maxProfit },
        });
      }
      const profit = await askValue(conversation, ctx, t, t(kindOf(service) === 'middles' ? 'fb_profit_middles' : 'fb_profit'), buttons, (text) =>
        parseRange(text, rules, true),
      );
      settings.minProfit = profit.min;
      settings.maxProfit = profit.max;
    }

    const oddsButtons: { label: string; value: { min: number | null; max: number | null } }[] = [
      { label: t('btn_any_odds'), value: { min: null, max: null } },
    ];
    if (editing && (settings.minOdds !== null || settings.maxOdds !== null)) {
      oddsButtons.push({
        label: t('btn_keep', { value: rangeLabel(settings.minOdds, settings.maxOdds, '') }),
        value: { min: settings.minOdds, max: settings.maxOdds },
      });
    }
    // A valuebet is one bet: its question speaks of the odds of that bet, not of legs.
    const oddsQuestion = t(kindOf(service) === 'valuebets' ? 'fb_odds_valuebet' : 'fb_odds');
    const odds = await askValue(conversation, ctx, t, oddsQuestion, oddsButtons, (text) => parseRange(text, oddsRules));
    settings.minOdds = odds.min;
    settings.maxOdds = odds.max;

    if (!isLive(service)) {
      const hourButtons: { label: string; value: number | null }[] = [{ label: t('btn_any_time'), value: null }];
      if (editing && settings.hoursToStart !== null) {
        hourButtons.push({ label: t('btn_keep', { value: t('hours_n', { n: fmtNum(settings.hoursToStart) }) }), value: settings.hoursToStart });
      }
      settings.hoursToStart = await askValue(conversation, ctx, t, t('fb_hours'), hourButtons, (text) => parsePositive(text, HOURS_MAX, '12'));
    } else {
      settings.hoursToStart = null;
    }

    // The summary, with what adding this service does to the coverage of the others.
    const coverage = await conversation.external(() => ({
      before: rt.scheduler.coverage(userId),
      after: rt.scheduler.coverage(userId, service),
      rank: rt.store.getUser(userId)?.serviceRank ?? [],
    }));
    const dicts: Dictionaries | undefined = lists
      ? {
          lang: args.lang,
          sports: Object.fromEntries(lists.sports.map(([id, name]) => [String(id), name])),
          bookmakers: Object.fromEntries(lists.bookmakers.map(([id, name]) => [String(id), name])),
          liveBookmakers: [],
          oddsGroups: {},
          oddsSections: {},
          oddsTypes: {},
          reflections: {},
        }
      : undefined;
    const names = namesFor(dicts, args.lang);
    const summary = () => {
      const parts = [t('fb_summary', { service: serviceLabel(service, t) }), describeFilter(service, settings, names, t)];
      const never = neverMatches(service, settings, t, names, lists?.live);
      if (never.length > 0) parts.push(never.join('\n'));
      const tradeOff = coverageTradeOff(coverage.before, coverage.after, t);
      // What each share would mean, in minutes of the hour (#34: "8 %" alone said nothing).
      if (tradeOff) parts.push(`${tradeOff}\n${coverageLines(coverage.after, coverage.rank, t)}`);
      // Market groups are a choice most never make: a button here, not a step everyone walks through.
      return sendPrompt(ctx, parts.join('\n\n'), keyboard([[btn(t('btn_markets'), { type: 'choice', index: 0 })], [btn(t('btn_save'), { type: 'save' }), btn(t('btn_cancel'), { type: 'cancel' })]]));
    };
    let confirmId = await summary();

    for (;;) {
      const answer = await waitAnswer(conversation, t, confirmId);
      if (answer.kind === 'text') {
        await answer.ctx.reply(t('fb_press_save'));
        continue;
      }
      if (answer.button.type === 'choice') {
        await closePrompt(answer.ctx, confirmId);
        settings.marketsOff = await chooseMarkets(conversation, ctx, t, settings.marketsOff);
        confirmId = await summary();
        continue;
      }
      if (answer.button.type === 'cancel') {
        await closePrompt(answer.ctx, confirmId);
        await answer.ctx.reply(t('fb_cancelled'));
        return;
      }
      if (answer.button.type !== 'save') continue;
      await closePrompt(answer.ctx, confirmId);
      const outcome: SaveOutcome = await conversation.external(() => saveFilter(rt, userId, service, settings));
      const after = await conversation.external(() => ({
        coverage: rt.scheduler.coverage(userId),
        where: { now: rt.clock.now(), zone: rt.store.getUser(userId)?.timeZone ?? 'UTC', lang: args.lang },
      }));
      await answer.ctx.reply(saveOutcomeText(t, service, outcome, after.coverage, after.where));
      return;
    }
  };
}

/** The market groups to leave out, chosen as the ones to keep (none chosen: every market). */
async function chooseMarkets(conversation: Convo, ctx: ConvContext, t: Translate, off: readonly MarketGroup[]): Promise<MarketGroup[]> {
  const kept = await multiSelect(conversation, ctx, t, {
    title: t('fb_markets'),
    options: MARKET_GROUPS.map((g, i): [number, string] => [i, marketGroupName(g, t)]),
    selected: off.length === 0 ? [] : MARKET_GROUPS.flatMap((g, i) => (off.includes(g) ? [] : [i])),
    allLabel: t('all_markets'),
  });
  return kept.length === 0 ? [] : MARKET_GROUPS.filter((_, i) => !kept.includes(i));
}

/** The user's clock and language, for the times an answer names. */
export interface AnswerWhere {
  now: number;
  zone: string;
  lang: Lang;
}

/** The answer after a save attempt (shared with the one-line /filter). */
export function saveOutcomeText(t: Translate, service: Service, outcome: SaveOutcome, coverage: Partial<Record<Service, ServiceCoverage>>, where: AnswerWhere): string {
  const label = serviceLabel(service, t);
  switch (outcome.kind) {
    case 'saved': {
      // "Alerts start within seconds" only when the first read is due then (#10): else when it is due.
      const saved = `${t('fb_saved', { service: label })} ${firstReadWords(coverage[service], where.now, where.zone, where.lang, t)}`;
      const list = coverageList(coverage, t);
      return list === '' ? saved : `${saved}\n${t('coverage_now', { list: html(list) })}`;
    }
    case 'draft': {
      const when = draftWhen(outcome.expectedAt, where.now, where.zone, where.lang, t);
      return when && outcome.tokens ? t('fb_saved_draft', { service: label, ...when }) : t('fb_saved_draft_later', { service: label });
    }
    case 'no_key':
      return t('need_key');
    case 'capped':
      return t('cap_filter', { wait: waitWords(outcome.waitMs, t) });
    case 'error':
      if (outcome.errorKind === 'forbidden') return t('fb_save_forbidden', { service: label });
      if (outcome.errorKind === 'auth') return t('fb_save_auth');
      return t('fb_save_failed', { reason: html(errorInWords(outcome.errorKind, t)) });
  }
}
