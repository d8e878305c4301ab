/**
 * The alert formatter: one opportunity → a Telegram HTML message (en/ru) with its buttons.
 *
 * Layout, chosen for a phone: the first line says what it is and the headline number (that line
 * is what the push notification shows), then the match, its start, one line per leg, and the
 * maths for the user's bankroll. Every interpolated value is escaped and names are shortened,
 * every HTML tag opens and closes on the same line (the outbox may split long messages between
 * lines), and the result is never longer than Telegram's 4096 characters.
 *
 * The rule of every number: it is derived from the odds shown in the same message, as printed
 * (headline profit, hit and miss, EV from the printed fair odds, stakes, returns, worst case,
 * break-even odds, Kelly), so a user can check any line with a calculator; or, where the odds are
 * hidden, it is the service's figure and labelled as such. The maths therefore run on the odds as
 * they are printed (three decimals at most), not on more digits than the user can see.
 */
import type { Names } from '../service/dictionaries-model.js';
import type { Leg, Opportunity } from '../service/opportunity.js';
import { isLive, type Kind } from '../service/services.js';
import type { Lang } from '../store/schema.js';
import { encodeAlertAction, type AlertAction } from './callbacks.js';
import { clipText, escapeHtml, htmlToText } from '../lib/html.js';
import {
  arbProfitPct,
  arbStakes,
  middleIdealPct,
  middleOutcomes,
  valuebetMaths,
  valuebetProbability,
  type ArbStakes,
  type CannotCompute,
} from './stakes.js';
import { alertTexts, type AlertTexts } from './alert-texts.js';
import { formatCountdown, formatDuration, formatStart } from './time.js';

/** Who the alert is for: their language, zone and money settings, and the time to count from. */
export interface AlertView {
  lang: 'en' | 'ru';
  timeZone: string;
  bankroll: number;
  roundingStep: number;
  /** ms since the epoch (the scheduler's clock). */
  now: number;
  /** Shown after amounts when set ("100 EUR"). */
  currency?: string;
}

/** What happened to the item since its alert was sent. */
export type AlertState =
  | { state: 'new' }
  | { state: 'moved'; prev: Opportunity }
  | { state: 'gone'; livedMs: number; last: Opportunity };

/** A finished alert: HTML text and inline keyboard rows. */
export interface RenderedAlert {
  /** HTML parse mode, at most 4096 characters. */
  text: string;
  buttons: { text: string; callbackData: string }[][];
}

/** Telegram's limit on a message's text. */
export const TELEGRAM_TEXT_MAX = 4096;

const KIND_ICON: Record<Kind, string> = { arbs: '⚖️', middles: '🎯', valuebets: '💎' };

/** Length caps for names, tightened step by step if a message would still be too long. */
interface Limits {
  team: number;
  league: number;
  bookmaker: number;
  market: number;
  legs: number;
}
const LIMITS: Limits[] = [
  { team: 64, league: 80, bookmaker: 32, market: 40, legs: 12 },
  { team: 32, league: 40, bookmaker: 20, market: 24, legs: 6 },
  { team: 16, league: 20, bookmaker: 12, market: 12, legs: 3 },
];
/** The short line shows no legs; its own name caps are applied where it is built. */
const SHORT_LIMITS: Limits = { team: 40, league: 40, bookmaker: 20, market: 20, legs: 0 };

// ---------------------------------------------------------------------------------------------
// Numbers as they are shown. Dots for decimals in both languages: odds are written that way on
// every bookmaker's site, and percentages next to them read the same.

/** Odds: two decimals, a third only when it carries information (2.10, 1.875). */
function fmtOdds(odds: number): string {
  if (!Number.isFinite(odds)) return '—';
  const s = odds.toFixed(3);
  return s.endsWith('0') ? s.slice(0, -1) : s;
}

/** A signed percentage: "+2.35%", "−1.20%", "0.00%". */
function fmtPct(pct: number): string {
  const r = Math.round(pct * 100) / 100;
  if (r === 0 || !Number.isFinite(r)) return '0.00%';
  return `${r > 0 ? '+' : '−'}${Math.abs(r).toFixed(2)}%`;
}

/** A fraction as an unsigned percentage: 0.0476 → "4.76%". */
function fmtShare(fraction: number): string {
  return `${(Math.round(fraction * 10_000) / 100).toFixed(2)}%`;
}

/** Money: "49", "48.50", "+2.00", "−1.50"; `whole` drops ".00" for round amounts (stakes). */
function fmtMoney(amount: number, opts: { signed?: boolean; whole?: boolean } = {}): string {
  const cents = Math.round(amount * 100);
  const abs = Math.abs(cents);
  const body = opts.whole && abs % 100 === 0 ? String(abs / 100) : (abs / 100).toFixed(2);
  if (cents < 0) return `−${body}`;
  return opts.signed && cents > 0 ? `+${body}` : body;
}

const withCurrency = (amount: string, view: AlertView): string =>
  view.currency ? `${amount} ${escapeHtml(clipText(view.currency, 8))}` : amount;

// ---------------------------------------------------------------------------------------------
// What the item's numbers are.

/** A number from the service worth showing: masked envelopes send zeros, which mean "hidden". */
function shown(value: number | null, item: Opportunity): number | undefined {
  if (value === null || !Number.isFinite(value)) return undefined;
  if (item.masked && value === 0) return undefined;
  return value;
}

/** Odds as printed: the maths use exactly what the user sees (2.1234 is shown, and counted, as 2.123). */
const printedOdds = (odds: number): number => Number(fmtOdds(odds));

/** Every leg's odds as printed, or undefined when any is hidden. */
function legOdds(item: Opportunity): number[] | undefined {
  if (item.legs.length === 0) return undefined;
  const odds: number[] = [];
  for (const leg of item.legs) {
    if (leg.odds === null || (item.masked && leg.odds === 0)) return undefined;
    odds.push(printedOdds(leg.odds));
  }
  return odds;
}

/**
 * A valuebet's probability as its alert prints it: 1 / the fair odds shown (the service's
 * probability, else the one its overvalue implies, rounded as fair odds are printed).
 */
function printedProbability(item: Opportunity, odds: number): number | CannotCompute {
  const p = valuebetProbability(odds, item.probability, shown(item.overvalue, item) ?? null);
  return typeof p === 'number' ? 1 / printedOdds(1 / p) : p;
}

/** Live by the event's flag or by the service it came from (a live service's items are live). */
const isLiveItem = (item: Opportunity): boolean => item.event.live || isLive(item.service);

const isHidden = (item: Opportunity, leg: Leg): boolean => leg.odds === null || (item.masked && leg.odds === 0);

interface Metric {
  /** "hit"/"miss" for middles; empty when the kind has one number. */
  label: string;
  value: number | undefined;
}

/** The headline number(s) and where they come from. */
interface Metrics {
  /** 'odds': computed from the odds the message prints; 'service': the service's figures (odds hidden). */
  source: 'odds' | 'service';
  values: Metric[];
}

/**
 * The headline number(s), computed from the printed odds whenever they are all shown (arbs:
 * 1/Σ(1/o) − 1; middles: hit 2/Σ(1/o) − 1 and miss 1/Σ(1/o) − 1; valuebets: odds / fair odds − 1);
 * the service's own figures only when the odds are hidden.
 */
function metrics(item: Opportunity, t: AlertTexts): Metrics {
  const odds = legOdds(item);
  switch (item.kind) {
    case 'arbs': {
      const value = odds ? arbProfitPct(odds) : undefined;
      if (value !== undefined) return { source: 'odds', values: [{ label: '', value }] };
      return { source: 'service', values: [{ label: '', value: shown(item.profit, item) }] };
    }
    case 'middles': {
      const ideal = odds?.length === 2 ? middleIdealPct([odds[0] ?? 0, odds[1] ?? 0]) : undefined;
      if (ideal) {
        return { source: 'odds', values: [{ label: t.hitWord, value: ideal.hit }, { label: t.missWord, value: ideal.miss }] };
      }
      return {
        source: 'service',
        values: [
          { label: t.serviceValueWord, value: shown(item.profit, item) },
          { label: t.serviceMiddleWord, value: shown(item.middleProfit, item) },
        ],
      };
    }
    case 'valuebets': {
      const first = odds?.[0];
      const p = first === undefined ? undefined : printedProbability(item, first);
      if (first !== undefined && typeof p === 'number') {
        return { source: 'odds', values: [{ label: '', value: (first * p - 1) * 100 }] };
      }
      return { source: 'service', values: [{ label: '', value: shown(item.overvalue, item) }] };
    }
  }
}

/** A headline number moved when its printed value changed (never "+2.35% → +2.35%"). */
const moved = (now: number | undefined, before: number | undefined): boolean =>
  now !== undefined && before !== undefined && fmtPct(now) !== fmtPct(before);

const arrow = (now: number, before: number): string => (now > before ? '▲' : '▼');

/** The previous version of `leg`: same position when it is the same market, else found by key. */
function matchLeg(prev: Opportunity, leg: Leg, index: number): Leg | undefined {
  const same = (l: Leg | undefined): l is Leg =>
    l !== undefined && l.subEventId === leg.subEventId && l.typeId === leg.typeId && l.line === leg.line;
  const at = prev.legs[index];
  if (same(at)) return at;
  return prev.legs.find(same);
}

// ---------------------------------------------------------------------------------------------
// Lines.

interface Ctx {
  item: Opportunity;
  names: Names;
  view: AlertView;
  t: AlertTexts;
  lang: Lang;
  limits: Limits;
  /** Set when the alert moved: the version it is compared with. */
  prev?: Opportunity;
}

/** The earlier headline numbers to compare with, when they come from the same source as now. */
function comparable(now: Metrics, prev: Opportunity | undefined, t: AlertTexts): Metrics | undefined {
  const before = prev ? metrics(prev, t) : undefined;
  return before?.source === now.source ? before : undefined;
}

/**
 * The headline without markup: "Arb +2.35% ▲", "Middle: hit +95.00%, miss −2.10%"; with hidden
 * odds, "Arb +2.35% (service's figure)".
 */
function headlineTitle(ctx: Ctx): string {
  const { item, t, prev } = ctx;
  const now = metrics(item, t);
  const before = comparable(now, prev, t);
  const num = (i: number): string | undefined => {
    const m = now.values[i];
    if (m?.value === undefined) return undefined;
    const b = before?.values[i]?.value;
    return moved(m.value, b) && b !== undefined ? `${fmtPct(m.value)} ${arrow(m.value, b)}` : fmtPct(m.value);
  };
  const kindName = t.kind[item.kind];
  const nums = now.values.map((_, i) => num(i));
  const known = nums.filter((n) => n !== undefined).length;
  if (known === 0) return kindName;
  if (now.source === 'odds') {
    return item.kind === 'middles' ? t.middleHeadline(kindName, nums[0] ?? '—', nums[1] ?? '—') : `${kindName} ${nums[0] ?? '—'}`;
  }
  const note = t.serviceFigures(known);
  if (item.kind !== 'middles') return `${kindName} ${nums[0] ?? '—'} ${note}`;
  const parts = now.values.flatMap((m, i) => (nums[i] === undefined ? [] : [`${m.label} ${nums[i]}`]));
  return `${kindName}: ${parts.join(', ')} ${note}`;
}

/** The first line (what the push notification shows): icon, kind, headline number, live or prematch. */
function headline(ctx: Ctx): string {
  const { item, t } = ctx;
  return `${KIND_ICON[item.kind]} <b>${escapeHtml(headlineTitle(ctx))}</b> · ${isLiveItem(item) ? t.live : t.prematch}`;
}

/** "✏️ Changed: +2.10% → +2.35%" for a moved alert, or undefined when no headline number moved. */
function changedLine(ctx: Ctx): string | undefined {
  const { item, t, prev } = ctx;
  const now = metrics(item, t);
  const before = comparable(now, prev, t);
  if (!before) return undefined;
  const parts: string[] = [];
  now.values.forEach((m, i) => {
    const b = before.values[i]?.value;
    if (m.value !== undefined && b !== undefined && moved(m.value, b)) {
      parts.push(`${m.label ? `${m.label} ` : ''}${fmtPct(b)} → ${fmtPct(m.value)}`);
    }
  });
  return parts.length > 0 ? t.changed(parts.join('; ')) : undefined;
}

function eventLines(ctx: Ctx): string[] {
  const { item, names, view, t, lang, limits } = ctx;
  const { event } = item;
  const lines: string[] = [];
  const team1 = clipText(event.team1.trim(), limits.team);
  const team2 = clipText(event.team2.trim(), limits.team);
  const teams = team1 && team2 ? `${team1} — ${team2}` : team1 || team2;
  if (teams) lines.push(`<b>${escapeHtml(teams)}</b>`);
  const sport = names.sport(event.sportId);
  const league = clipText(event.league.trim(), limits.league);
  lines.push(escapeHtml(league ? `${clipText(sport, limits.league)} · ${league}` : clipText(sport, limits.league)));
  if (event.startsAt === undefined || !Number.isFinite(event.startsAt)) {
    lines.push(`🕒 ${isLiveItem(item) ? formatCountdown(0, lang, true) : t.startUnknown}`);
  } else {
    const when = formatStart(event.startsAt, view.timeZone, lang);
    lines.push(`🕒 ${when} · ${formatCountdown(event.startsAt - view.now, lang, isLiveItem(item))}`);
  }
  return lines;
}

function bookmakerName(ctx: Ctx, leg: Leg): string {
  return escapeHtml(clipText(ctx.names.bookmaker(leg.bookmakerId), ctx.limits.bookmaker));
}

/** One line per leg: "1) Pinnacle · TO(2.5) · 2.10 ▲ (was 2.05)". */
function legLines(ctx: Ctx, compare: 'service' | 'prev' | 'none'): string[] {
  const { item, names, t, limits, prev } = ctx;
  if (item.legs.length === 0) return [t.noLegs];
  const lines = item.legs.slice(0, limits.legs).map((leg, i) => {
    const market = escapeHtml(clipText(names.market(leg.typeId, leg.line), limits.market));
    if (isHidden(item, leg)) return `${i + 1}) ${bookmakerName(ctx, leg)} · ${market} · <i>${t.oddsHidden}</i>`;
    const odds = leg.odds ?? 0;
    let before: number | null | undefined;
    if (compare === 'service') before = leg.prevOdds;
    else if (compare === 'prev' && prev) before = matchLeg(prev, leg, i)?.odds;
    const change =
      before !== null && before !== undefined && before > 0 && fmtOdds(odds) !== fmtOdds(before)
        ? ` ${arrow(odds, before)} ${t.was(fmtOdds(before))}`
        : '';
    return `${i + 1}) ${bookmakerName(ctx, leg)} · ${market} · <b>${fmtOdds(odds)}</b>${change}`;
  });
  const hiddenCount = item.legs.length - limits.legs;
  if (hiddenCount > 0) lines.push(t.moreLegs(hiddenCount));
  return lines;
}

const cannot = (ctx: Ctx, r: CannotCompute): string => `<i>${ctx.t.cannotCompute[r.reason]}</i>`;

/** The maths for the user's bankroll: stakes, outcomes, break-even, EV and Kelly. */
function mathsLines(ctx: Ctx): string[] {
  const { item, view, t } = ctx;
  if (item.legs.length === 0) return [];
  if (item.masked || item.legs.some((leg) => isHidden(item, leg))) return [t.maskedNote];
  const odds = legOdds(item) ?? [];
  const stakeLine = (i: number, stake: number, payout: number): string => {
    const leg = item.legs[i];
    const book = leg ? `${bookmakerName(ctx, leg)} ` : '';
    return `${i + 1}) ${book}${fmtMoney(stake, { whole: true })} → ${fmtMoney(payout)}`;
  };
  const money = (amount: number) => withCurrency(fmtMoney(amount, { whole: true }), view);
  // The title never claims a total the stakes below do not add up to.
  const title = (r: ArbStakes): string => {
    if (r.overBankroll) return t.stakesOverBankroll(money(view.bankroll), money(r.total));
    const sameCents = Math.round(r.total * 100) === Math.round(view.bankroll * 100);
    return sameCents ? t.stakesTitle(money(view.bankroll)) : t.stakesTitleTotal(money(view.bankroll), money(r.total));
  };
  // Long arbs list as many stakes as legs were listed, then say how many more.
  const capped = <T>(values: T[], render: (v: T, i: number) => string): string[] => {
    const lines = values.slice(0, ctx.limits.legs).map(render);
    const more = values.length - ctx.limits.legs;
    return more > 0 ? [...lines, t.moreLegs(more)] : lines;
  };
  switch (item.kind) {
    case 'arbs': {
      const r = arbStakes(odds, view.bankroll, view.roundingStep);
      if (!r.ok) return [cannot(ctx, r)];
      const shownBreakEven = r.breakEven.slice(0, ctx.limits.legs).map((b, i) => `${i + 1}) ${fmtOdds(b)}`);
      if (r.breakEven.length > ctx.limits.legs) shownBreakEven.push('…');
      return [
        title(r),
        ...capped(r.stakes, (s, i) => stakeLine(i, s, r.payouts[i] ?? 0)),
        t.worstCase(fmtMoney(r.worstProfit, { signed: true }), fmtPct(r.worstProfitPct)),
        t.breakEven(shownBreakEven.join(' · ')),
      ];
    }
    case 'middles': {
      const [a, b] = odds;
      if (odds.length !== 2 || a === undefined || b === undefined) return [cannot(ctx, { ok: false, reason: 'invalid-odds' })];
      const r = middleOutcomes([a, b], view.bankroll, view.roundingStep);
      if (!r.ok) return [cannot(ctx, r)];
      return [
        title(r.arb),
        ...capped(r.stakes, (s, i) => stakeLine(i, s, r.arb.payouts[i] ?? 0)),
        t.ifHit(fmtMoney(r.ifHit.profit, { signed: true }), fmtPct(r.ifHit.pct)),
        t.ifMiss(fmtMoney(r.ifMiss.profit, { signed: true }), fmtPct(r.ifMiss.pct)),
      ];
    }
    case 'valuebets': {
      const first = odds[0];
      if (first === undefined) return [cannot(ctx, { ok: false, reason: 'no-odds' })];
      const p = printedProbability(item, first);
      if (typeof p !== 'number') return [cannot(ctx, p)];
      const r = valuebetMaths(first, p, null, view.bankroll, view.roundingStep);
      if (!r.ok) return [cannot(ctx, r)];
      const kelly =
        r.kellyFraction <= 0
          ? t.kellyNoEdge
          : r.kellyStake > 0
            ? t.kelly(fmtShare(r.kellyFraction), money(r.kellyStake))
            : t.kellyBelowStep(fmtShare(r.kellyFraction));
      return [t.ev(fmtPct(r.evPct), fmtOdds(r.fairOdds)), kelly];
    }
  }
}

/** Joins blocks with one empty line between non-empty blocks. */
function joinBlocks(blocks: string[][]): string {
  return blocks
    .filter((b) => b.length > 0)
    .map((b) => b.join('\n'))
    .join('\n\n');
}

/**
 * Renders with the loosest name limits that fit in 4096 characters; as a last resort drops whole
 * lines from the end (every line is balanced HTML, so the rest stays valid).
 */
function fit(render: (limits: Limits) => string): string {
  let text = '';
  for (const limits of LIMITS) {
    text = render(limits);
    if (text.length <= TELEGRAM_TEXT_MAX) return text;
  }
  const lines = text.split('\n');
  while (lines.length > 1 && lines.join('\n').length > TELEGRAM_TEXT_MAX - 2) lines.pop();
  const kept = lines.join('\n');
  return kept.length <= TELEGRAM_TEXT_MAX - 2 ? `${kept}\n…` : '…';
}

function context(item: Opportunity, names: Names, view: AlertView, limits: Limits, prev?: Opportunity): Ctx {
  return { item, names, view, t: alertTexts(view.lang), lang: view.lang, limits, prev };
}

function buttonsFor(item: Opportunity, t: AlertTexts, state: AlertState['state']): RenderedAlert['buttons'] {
  const b = (text: string, action: AlertAction) => {
    const callbackData = encodeAlertAction(action);
    return callbackData === undefined ? [] : [{ text, callbackData }];
  };
  const { service } = item;
  const eventButton = b(t.buttons.event, { type: 'event', service, eventId: item.event.id });
  const muteButton = b(t.buttons.mute, { type: 'mute', service, eventId: item.event.id });
  if (state === 'gone') return [[...eventButton, ...muteButton]].filter((row) => row.length > 0);
  const stakesUseful = legOdds(item) !== undefined && !item.masked;
  const rows = [
    eventButton,
    stakesUseful ? b(t.buttons.stakes, { type: 'stakes', service, itemId: item.id }) : [],
    [...muteButton, ...b(t.buttons.snooze, { type: 'snooze', service })],
  ];
  return rows.filter((row) => row.length > 0);
}

/**
 * The alert for one item in one of its states:
 * - 'new': the full alert with stakes and all four buttons;
 * - 'moved': the same, compared with `prev` (changed legs and headline numbers get ▲/▼ and the old
 *   value, plus a "Changed" line), for editing the alert in place;
 * - 'gone': "⛔ Gone after 4 min 10 s" over the last known alert (`state.last`) struck through,
 *   without the stakes and without the stake and snooze buttons (all items of the event and mute stay).
 */
export function formatAlert(item: Opportunity, names: Names, view: AlertView, state: AlertState): RenderedAlert {
  const t = alertTexts(view.lang);
  if (state.state === 'gone') {
    const last = state.last;
    const text = fit((limits) => {
      const ctx = context(last, names, view, limits);
      const strike = (lines: string[]) => lines.map((l) => `<s>${l}</s>`);
      return joinBlocks([
        [`<b>${escapeHtml(t.gone(last.kind, formatDuration(state.livedMs, view.lang)))}</b>`],
        strike([headline(ctx), ...eventLines(ctx)]),
        strike(legLines(ctx, 'none')),
      ]);
    });
    return { text, buttons: buttonsFor(last, t, 'gone') };
  }
  const prev = state.state === 'moved' ? state.prev : undefined;
  const text = fit((limits) => {
    const ctx = context(item, names, view, limits, prev);
    const changed = changedLine(ctx);
    return joinBlocks([
      [headline(ctx), ...eventLines(ctx), ...(changed ? [changed] : [])],
      legLines(ctx, prev ? 'prev' : 'service'),
      mathsLines(ctx),
    ]);
  });
  return { text, buttons: buttonsFor(item, t, state.state) };
}

/**
 * The full card of an item (for /item, /event and inline results): the alert's content with the
 * stakes for `view.bankroll`, plus the item id, its service and how long ago it was found. HTML.
 */
export function formatCard(item: Opportunity, names: Names, view: AlertView): string {
  const t = alertTexts(view.lang);
  return fit((limits) => {
    const ctx = context(item, names, view, limits);
    const found =
      item.createdAt !== undefined && item.createdAt <= view.now
        ? formatDuration(view.now - item.createdAt, view.lang)
        : undefined;
    const footer = t.cardFooter(`<code>${escapeHtml(clipText(item.id, 64))}</code>`, item.service, found);
    return joinBlocks([[headline(ctx), ...eventLines(ctx)], legLines(ctx, 'service'), mathsLines(ctx), [footer]]);
  });
}

/**
 * One line for lists, digests and quiet-hours summaries: "⚖️ Arb +2.35% · A — B · Sat 3 Jan 12:00".
 * HTML-escaped but without tags, so it is safe inside any HTML message; use `formatShortTitle`
 * where plain text is needed (inline result titles).
 */
export function formatShortLine(item: Opportunity, names: Names, view: AlertView): string {
  const t = alertTexts(view.lang);
  const ctx = context(item, names, view, SHORT_LIMITS);
  const title = `${KIND_ICON[item.kind]} ${headlineTitle(ctx)}`;
  const { event } = item;
  const team1 = clipText(event.team1.trim(), 40);
  const team2 = clipText(event.team2.trim(), 40);
  const teams = team1 && team2 ? `${team1} — ${team2}` : team1 || team2 || clipText(event.league.trim(), 40);
  let when = '';
  if (isLiveItem(item)) when = t.live;
  else if (event.startsAt !== undefined && Number.isFinite(event.startsAt)) {
    when = formatStart(event.startsAt, view.timeZone, view.lang);
  }
  return [title, teams, when]
    .filter((part) => part !== '')
    .map(escapeHtml)
    .join(' · ');
}

/** `formatShortLine` as plain text (no entities), for places that are not parsed as HTML. */
export function formatShortTitle(item: Opportunity, names: Names, view: AlertView): string {
  return htmlToText(formatShortLine(item, names, view));
}
