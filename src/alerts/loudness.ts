/**
 * Which alerts make a sound. A phone that buzzes for a +0.3 % arb as for a +6 % one teaches its
 * owner to ignore both, so each user sets per service a loud threshold (`loud.from`): alerts from
 * it buzz, the rest arrive silently (Telegram's `disable_notification`). A live alert whose every
 * leg is stale (its odds older than the user's limit) is news of something most likely gone: it
 * arrives silently, or not at all (`staleMode`).
 *
 * An alert that gets much better is worth a second buzz: when its profit rises by `loud.rise`
 * points over the last one the user was told of, or crosses `loud.from` from below, a short
 * message replies to the alert ("▲ Arb now +4.10% (was +2.05%)"); smaller moves stay silent edits.
 * The profit counted is the one the alert shows (after the user's commissions), `AlertEntry.loudBase`.
 */
import { clipText, escapeHtml } from '../lib/html.js';
import type { Names } from '../service/dictionaries-model.js';
import type { Opportunity } from '../service/opportunity.js';
import type { Service } from '../service/services.js';
import type { AlertEntry, UserRecord } from '../store/schema.js';
import { allLegsStale, KIND_ICON, type AlertView, type StaleAfter } from './alert-lines.js';
import { alertTexts } from './alert-texts.js';
import { isLiveItem, metrics } from './headline-figures.js';
import { fmtPct } from './printed.js';

/** The bot's stale-leg limits (STALE_LEG_SECONDS, STALE_LEG_SECONDS_PREMATCH), in seconds. */
export interface StaleDefaults {
  liveSeconds: number;
  prematchSeconds: number;
}

export const DEFAULT_STALE: StaleDefaults = { liveSeconds: 60, prematchSeconds: 900 };

/**
 * How long a re-alert stays worth its buzz (ms from the read that saw the rise). A bot behind
 * Telegram's pace would otherwise queue them behind its new alerts and buzz minutes later about a
 * profit long moved, while the alert's own edits (which show the profit now) waited behind them.
 */
export const RE_ALERT_FRESH_MS = 30_000;

/** The bot's stale-leg limits from its settings. */
export function staleDefaultsOf(config: { STALE_LEG_SECONDS: number; STALE_LEG_SECONDS_PREMATCH: number }): StaleDefaults {
  return { liveSeconds: config.STALE_LEG_SECONDS, prematchSeconds: config.STALE_LEG_SECONDS_PREMATCH };
}

/** The user's stale-leg limits, their own where set, else the bot's. */
export function staleAfterFor(user: Pick<UserRecord, 'staleLegSeconds'>, defaults: StaleDefaults = DEFAULT_STALE): StaleAfter {
  return {
    liveMs: (user.staleLegSeconds.live ?? defaults.liveSeconds) * 1000,
    prematchMs: (user.staleLegSeconds.prematch ?? defaults.prematchSeconds) * 1000,
  };
}

/** The headline number as the alert shows it (after the user's commissions); undefined when it shows none. */
export function shownHeadline(item: Opportunity, view: AlertView, names: Names): number | undefined {
  const value = metrics(item, alertTexts(view.lang), { names, books: view.books }).values[0]?.value;
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

/** A live alert whose every leg is stale. */
export function isStaleLive(item: Opportunity, view: AlertView): boolean {
  return isLiveItem(item) && allLegsStale(item, view);
}

const loudFrom = (user: Pick<UserRecord, 'loud'>, service: Service): number | null => user.loud[service]?.from ?? null;
const loudRise = (user: Pick<UserRecord, 'loud'>, service: Service): number => user.loud[service]?.rise ?? 1;

/** Whether a profit is loud enough to buzz for this user and service. */
function loudEnough(user: Pick<UserRecord, 'loud'>, service: Service, profit: number | undefined): boolean {
  const from = loudFrom(user, service);
  return from === null || (profit !== undefined && profit >= from - 1e-9);
}

/** How a new alert goes: dropped (all legs stale, the user said drop), silent, or loud; and the profit a rise counts from. */
export function newAlertManner(
  item: Opportunity,
  user: Pick<UserRecord, 'loud' | 'staleMode'>,
  service: Service,
  view: AlertView,
  names: Names,
): { drop: boolean; silent: boolean; base: number | undefined } {
  const base = shownHeadline(item, view, names);
  const stale = user.staleMode !== 'show' && isStaleLive(item, view);
  return { drop: stale && user.staleMode === 'drop', silent: stale || !loudEnough(user, service, base), base };
}

/**
 * The re-alert a move calls for, if any: the profit now and the one the user was last told of.
 * Only an alert whose message exists and whose entry has a base; never for a live alert gone stale.
 */
export function reAlertFor(
  item: Opportunity,
  entry: Pick<AlertEntry, 'loudBase' | 'messageId'>,
  user: Pick<UserRecord, 'loud' | 'staleMode'>,
  service: Service,
  view: AlertView,
  names: Names,
): { now: number; was: number } | undefined {
  const was = entry.loudBase;
  if (was === undefined || entry.messageId === null) return undefined;
  const now = shownHeadline(item, view, names);
  if (now === undefined || !loudEnough(user, service, now)) return undefined;
  if (user.staleMode !== 'show' && isStaleLive(item, view)) return undefined;
  const from = loudFrom(user, service);
  const rose = now >= was + loudRise(user, service) - 1e-9;
  const crossed = from !== null && was < from - 1e-9;
  return rose || crossed ? { now, was } : undefined;
}

/** The re-alert's text: "⚖️ ▲ Arb now +4.10% (was +2.05%) · A — B". HTML, one line. */
export function reAlertText(item: Opportunity, view: AlertView, change: { now: number; was: number }): string {
  const t = alertTexts(view.lang);
  const { team1, team2, league } = item.event;
  const teams = [team1.trim(), team2.trim()].filter((s) => s !== '').map((s) => clipText(s, 40)).join(' — ') || clipText(league.trim(), 40);
  const tail = teams ? ` · ${escapeHtml(teams)}` : '';
  return `${KIND_ICON[item.kind]} ${t.reAlert(t.kind[item.kind], `<b>${fmtPct(change.now)}</b>`, fmtPct(change.was))}${tail}`;
}
