/**
 * The lines of an alert or card, each balanced HTML on its own (the outbox may split a long
 * message between lines): the headline (what the push notification shows), the "changed" line of
 * a moved alert, the event, and one line per leg with ▲▼ against the last version. Names are
 * clipped to the `NameCaps` in force; `format.ts` tightens them until the message fits.
 */
import { clipText, escapeHtml } from '../lib/html.js';
import type { Names } from '../service/dictionaries-model.js';
import type { Leg, Opportunity } from '../service/opportunity.js';
import type { Kind } from '../service/services.js';
import type { Lang } from '../store/schema.js';
import type { PlacedMark } from '../ledger/marks.js';
import type { AlertTexts } from './alert-texts.js';
import type { BookSettings } from '../store/book-settings.js';
import { shownAfterCommission } from './leg-pricing.js';
import { arrow, comparable, isHidden, isLiveItem, matchLeg, metrics, moved, pricedLegs, type Pricing } from './headline-figures.js';
import { fmtMoney, fmtOdds, fmtPct, withUnit } from './printed.js';
import { formatCountdown, formatDuration, formatStart } from './time.js';
import { notAnArbForYou } from './arb-for-you.js';

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
  /** The user's settings per bookmaker id (commission, max, min, step, status); none = defaults. */
  books?: Readonly<Record<string, BookSettings>>;
  /** The stakes are for an amount the user typed ("Other amount"), not for their bankroll. */
  otherAmount?: boolean;
  /** Leg index → the stake a bookmaker accepted ("✏️ Leg limited"): the other legs are solved around it. */
  fixedLegs?: Readonly<Record<number, number>>;
  /** How an arb's stakes are split: equal profit (default), or all profit on the leg with the highest/lowest odds. */
  stakingMode?: StakingMode;
  /** This alert only: all profit on this leg (index), the others breaking even. */
  profitOn?: number;
  /** The ledger's mark when the user placed this item: the alert then says so, edits included. */
  placed?: PlacedMark;
  /** The service's clock minus ours, ms (service/service-clock.ts): a leg's age is read on the service's clock. */
  serviceOffsetMs?: number;
  /** Past these ages a leg's odds are marked stale (⚠️), live and prematch; absent: never marked. */
  staleAfter?: StaleAfter;
  /** A new alert about to be sent: its footer says how long after the read that found it (this time, ms) it went. */
  foundAt?: number;
  /** The id of what this message prints (`src/ledger/prints.ts`): its ✅ / ✏️ buttons record that. */
  printId?: string;
}

/** The age past which a leg's odds are stale, ms: live odds go stale in a minute, prematch ones in many. */
export interface StaleAfter {
  liveMs: number;
  prematchMs: number;
}

/**
 * An `updated` time this far ahead of the service's clock (as measured) still reads as "0 s": the
 * Date header's one-second grain and the service's own rounding. Further ahead, the time is wrong
 * and the leg says nothing rather than guess.
 */
export const FUTURE_TOLERANCE_MS = 2_000;

/** How old a leg's odds are at `view.now` on the service's clock; undefined when it gave no time or one in the future. */
export function legAgeMs(leg: Pick<Leg, 'updatedAt'>, view: Pick<AlertView, 'now' | 'serviceOffsetMs'>): number | undefined {
  if (leg.updatedAt === undefined) return undefined;
  const age = view.now + (view.serviceOffsetMs ?? 0) - leg.updatedAt;
  if (!Number.isFinite(age) || age < -FUTURE_TOLERANCE_MS) return undefined;
  return Math.max(0, age);
}

/** Whether the leg's odds are older than the user's limit for this item (live or prematch); a leg of unknown age is not. */
export function isStaleLeg(item: Opportunity, leg: Leg, view: AlertView): boolean {
  if (!view.staleAfter) return false;
  const age = legAgeMs(leg, view);
  return age !== undefined && age > (isLiveItem(item) ? view.staleAfter.liveMs : view.staleAfter.prematchMs);
}

/** Whether every leg of the item is stale (none of unknown age): nothing in it is fresh enough to act on. */
export function allLegsStale(item: Opportunity, view: AlertView): boolean {
  return item.legs.length > 0 && item.legs.every((leg) => isStaleLeg(item, leg, view));
}

/** " · 12 s" (" · ⚠️ 95 s" when stale) after a leg's odds; nothing when its age is unknown. */
function ageSuffix(ctx: LineContext, leg: Leg): string {
  const age = legAgeMs(leg, ctx.view);
  if (age === undefined) return '';
  return ` · ${isStaleLeg(ctx.item, leg, ctx.view) ? '⚠️ ' : ''}${formatDuration(age, ctx.lang)}`;
}

export type StakingMode = 'equal' | 'high' | 'low';

/** The icon before each kind's headline. */
export const KIND_ICON: Record<Kind, string> = { arbs: '⚖️', middles: '🎯', valuebets: '💎' };

/** Length caps for names, tightened step by step if a message would still be too long. */
export interface NameCaps {
  team: number;
  league: number;
  bookmaker: number;
  market: number;
  legs: number;
}
export const NAME_CAPS: NameCaps[] = [
  { team: 64, league: 80, bookmaker: 32, market: 40, legs: 12 },
  { team: 32, league: 40, bookmaker: 20, market: 24, legs: 6 },
  { team: 16, league: 20, bookmaker: 12, market: 12, legs: 3 },
];
/** The short line shows no legs; its own name caps are applied where it is built. */
export const SHORT_NAME_CAPS: NameCaps = { team: 40, league: 40, bookmaker: 20, market: 20, legs: 0 };

/** What every line is built from: the item, names, the reader's view and texts, the caps in force. */
export interface LineContext {
  item: Opportunity;
  names: Names;
  view: AlertView;
  t: AlertTexts;
  lang: Lang;
  limits: NameCaps;
  /** Set when the alert moved: the version it is compared with. */
  prev?: Opportunity;
}

/** What the maths need to price the context's legs. */
export const pricingOf = (ctx: Pick<LineContext, 'names' | 'view'>): Pricing => ({ names: ctx.names, books: ctx.view.books });

/**
 * The headline without markup: "Arb +2.35% ▲", "Middle: hit +95.00%, miss −2.10%"; with hidden
 * odds, "Arb +2.35% (service's figure)".
 */
export function headlineTitle(ctx: LineContext): string {
  const { item, t, prev } = ctx;
  const now = metrics(item, t, pricingOf(ctx));
  const before = comparable(now, prev, t, pricingOf(ctx));
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
    // An arb with no winning stakes on the user's steps and caps is not titled "Arb" anywhere (arb-for-you.ts).
    const notArb = item.kind === 'arbs' && notAnArbForYou(item, ctx.names, ctx.view);
    const single = notArb ? t.notArbForYou(nums[0] ?? '—') : `${kindName} ${nums[0] ?? '—'}`;
    const title = item.kind === 'middles' ? t.middleHeadline(kindName, nums[0] ?? '—', nums[1] ?? '—') : single;
    return now.afterCommission ? `${title} ${t.afterCommission}` : title;
  }
  const note = t.serviceFigures(known);
  if (item.kind !== 'middles') return `${kindName} ${nums[0] ?? '—'} ${note}`;
  const parts = now.values.flatMap((m, i) => (nums[i] === undefined ? [] : [`${m.label} ${nums[i]}`]));
  return `${kindName}: ${parts.join(', ')} ${note}`;
}

/** The first line (what the push notification shows): icon, kind, headline number, live or prematch. */
export function headline(ctx: LineContext): string {
  const { item, t } = ctx;
  return `${KIND_ICON[item.kind]} <b>${escapeHtml(headlineTitle(ctx))}</b> · ${isLiveItem(item) ? t.live : t.prematch}`;
}

/** "✏️ Changed: +2.10% → +2.35%" for a moved alert, or undefined when no headline number moved. */
export function changedLine(ctx: LineContext): string | undefined {
  const { item, t, prev } = ctx;
  const now = metrics(item, t, pricingOf(ctx));
  const before = comparable(now, prev, t, pricingOf(ctx));
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

export function eventLines(ctx: LineContext): string[] {
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

/** A commission fraction as a percentage without noise: 0.05 → "5", 0.025 → "2.5". */
export const fmtCommission = (c: number): string => String(Math.round(c * 10_000) / 100);

export function bookmakerName(ctx: LineContext, leg: Leg): string {
  return escapeHtml(clipText(ctx.names.bookmaker(leg.bookmakerId), ctx.limits.bookmaker));
}

/** "✅ Placed 495 / 505 · worst case +35.25" when the user placed the item; nothing otherwise. */
export function placedLines(ctx: LineContext): string[] {
  const mark = ctx.view.placed;
  if (!mark) return [];
  const unit = (amount: string) => withUnit(amount, ctx.view.currency);
  const stakes = mark.stakes.map((s) => unit(fmtMoney(s, { whole: true }))).join(' / ');
  const worst = mark.worst === null ? undefined : unit(fmtMoney(mark.worst, { signed: true }));
  // The position's number too, as /open and the CSV name it.
  return [`<b>${ctx.t.placed(stakes, worst, mark.refused)} · #${escapeHtml(mark.positionId)}</b>`];
}

/** One line per leg: "1) Pinnacle · TO(2.5) · 2.10 ▲ (was 2.05) · 12 s" (the odds' age, ⚠️ when stale). */
export function legLines(ctx: LineContext, compare: 'service' | 'prev' | 'fresh' | 'none'): string[] {
  // A gone alert's legs are history: their ages would only grow. 'fresh' (a first alert) compares with nothing but shows ages.
  const age = (leg: Leg): string => (compare === 'none' ? '' : ageSuffix(ctx, leg));
  const { item, names, t, limits, prev } = ctx;
  if (item.legs.length === 0) return [t.noLegs];
  const priced = pricedLegs(item, pricingOf(ctx));
  const lines = item.legs.slice(0, limits.legs).map((leg, i) => {
    const market = escapeHtml(clipText(names.market(leg.typeId, leg.line), limits.market));
    if (isHidden(item, leg)) return `${i + 1}) ${bookmakerName(ctx, leg)} · ${market} · <i>${t.oddsHidden}</i>${age(leg)}`;
    const odds = leg.odds ?? 0;
    let before: number | null | undefined;
    if (compare === 'service') before = leg.prevOdds;
    else if (compare === 'prev' && prev) before = matchLeg(prev, leg, i)?.odds;
    const change =
      before !== null && before !== undefined && before > 0 && fmtOdds(odds) !== fmtOdds(before)
        ? ` ${arrow(odds, before)} ${t.was(fmtOdds(before))}`
        : '';
    // With commission, the odds the user really gets (a lay leg: the zero-commission lay odds
    // equivalent), printed as precisely as the maths use them (leg-pricing.ts).
    const p = priced?.[i];
    const effective = p && p.commission > 0 ? shownAfterCommission(p.odds, p.lay, p.commission) : undefined;
    const after =
      p && effective !== undefined && effective !== fmtOdds(p.odds)
        ? ` → ${effective} ${t.afterPctCommission(fmtCommission(p.commission))}`
        : '';
    return `${i + 1}) ${bookmakerName(ctx, leg)} · ${market} · <b>${fmtOdds(odds)}</b>${change}${after}${age(leg)}`;
  });
  const hiddenCount = item.legs.length - limits.legs;
  if (hiddenCount > 0) lines.push(t.moreLegs(hiddenCount));
  return lines;
}
