/** Filters, coverage and service errors in words, for /filters, /status and the filter builder. */
import { escapeHtml } from '../../lib/html.js';
import { html, type MessageKey, type Translate } from '../../locales/i18n.js';
import type { ServiceCoverage } from '../../scheduler/port.js';
import type { Names } from '../../service/dictionaries-model.js';
import type { FilterSettings } from '../../service/filter-model.js';
import type { MarketGroup } from '../../service/market-groups.js';
import { isLive, kindOf, SERVICES, type Service } from '../../service/services.js';
import type { FilterRecord } from '../../store/schema.js';
import { clipName } from './plain.js';
import { serviceLabel } from '../../locales/services.js';

/** A number without float noise or trailing zeros: 1.5, 10, 0.25. */
export function fmtNum(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** How many names each list shows before "and N more" (fewer when a long list must fit one message). */
export const LIST_NAMES = 8;

function listNames(ids: number[], name: (id: number) => string, t: Translate, allKey: MessageKey, maxNames: number): string {
  if (ids.length === 0) return t(allKey);
  // Dictionary names come from the service: each is clipped, so a list stays short whatever they hold.
  const shown = ids.slice(0, Math.max(1, maxNames)).map((id) => escapeHtml(clipName(name(id))));
  const more = ids.length - shown.length;
  return more > 0 ? `${shown.join(', ')} ${t('and_more', { n: more })}` : shown.join(', ');
}

function range(min: number | null, max: number | null, unit: string, t: Translate): string {
  if (min === null && max === null) return t('range_any');
  if (max === null) return t('range_from', { min: `${fmtNum(min ?? 0)}${unit}` });
  if (min === null) return t('range_to', { max: `${fmtNum(max)}${unit}` });
  return `${fmtNum(min)}–${fmtNum(max)}${unit}`;
}

/** The filter as short HTML lines (values escaped). */
export function describeFilter(service: Service, settings: FilterSettings, names: Names, t: Translate, maxNames = LIST_NAMES): string {
  const lines = [
    `${t('f_sports')}: ${listNames(settings.sports, (id) => names.sport(id), t, 'all_sports', maxNames)}`,
    `${t('f_bookmakers')}: ${listNames(settings.bookmakers, (id) => names.bookmaker(id), t, 'all_bookmakers', maxNames)}`,
  ];
  if (kindOf(service) === 'valuebets') {
    lines.push(`${t('f_overvalue')}: ${range(settings.minOvervalue, null, ' %', t)}`);
  } else {
    lines.push(`${t('f_profit')}: ${range(settings.minProfit, settings.maxProfit, ' %', t)}`);
  }
  lines.push(`${t('f_odds')}: ${range(settings.minOdds, settings.maxOdds, '', t)}`);
  if (!isLive(service)) {
    lines.push(
      `${t('f_hours')}: ${settings.hoursToStart === null ? t('range_any') : t('hours_n', { n: fmtNum(settings.hoursToStart) })}`,
    );
  }
  if (settings.marketsOff.length > 0) lines.push(t('filter_markets_off', { list: settings.marketsOff.map((g) => marketGroupName(g, t)).join(', ') }));
  const bySport = Object.entries(settings.minProfitBySport);
  if (bySport.length > 0 && kindOf(service) !== 'valuebets') {
    const list = bySport.map(([id, min]) => `${escapeHtml(clipName(names.sport(Number(id))))} ${fmtNum(min)} %`).join(', ');
    lines.push(t('filter_min_by_sport', { list }));
  }
  return lines.join('\n');
}

/** A market group in the user's words ("odd/even"). */
export const marketGroupName = (group: MarketGroup, t: Translate): string => t(`mg_${group}`);

/** "active" or "paused (why)". */
export function filterState(record: FilterRecord, t: Translate): string {
  if (!record.paused) return t('state_active');
  switch (record.pausedReason) {
    case 'auth':
      return t('state_paused_auth');
    case 'forbidden':
      return t('state_paused_forbidden');
    case 'blocked':
      return t('state_paused_blocked');
    default:
      return t('state_paused_user');
  }
}

/** A service error kind in words. */
export function errorInWords(kind: string, t: Translate): string {
  const keys = new Map<string, MessageKey>(Object.entries({
    auth: 'errw_auth',
    forbidden: 'errw_forbidden',
    rate_limited: 'errw_rate_limited',
    not_found: 'errw_not_found',
    server: 'errw_server',
    timeout: 'errw_timeout',
    malformed: 'errw_malformed',
  } satisfies Record<string, MessageKey>));
  const key = keys.get(kind);
  return key ? t(key) : t('errw_other', { kind });
}

/** "42 %" of the time; "100 %" when fully covered. */
export function sharePct(share: number): string {
  return `${Math.round(Math.max(0, Math.min(1, share)) * 100)} %`;
}

/** Live services first (they get the token budget first), then prematch; arbs, middles, valuebets within. */
const COVERAGE_ORDER: readonly Service[] = [...SERVICES.filter(isLive), ...SERVICES.filter((s) => !isLive(s))];

/** "Arbs · live 100 %, Middles · prematch 40 %", live services first. */
export function coverageList(coverage: Partial<Record<Service, ServiceCoverage>>, t: Translate): string {
  return COVERAGE_ORDER.filter((s) => coverage[s] !== undefined)
    .map((s) => `${escapeHtml(serviceLabel(s, t))} ${sharePct(coverage[s]?.share ?? 0)}`)
    .join(', ');
}

/**
 * The trade-off of adding `service`: undefined when nothing gets less coverage, else a sentence
 * naming the coverage every service would get.
 */
export function coverageTradeOff(
  before: Partial<Record<Service, ServiceCoverage>>,
  after: Partial<Record<Service, ServiceCoverage>>,
  t: Translate,
): string | undefined {
  const lowered = SERVICES.some((s) => {
    const next = after[s];
    if (!next) return false;
    const prev = before[s];
    return next.share < (prev?.share ?? 1) - 1e-9;
  });
  if (!lowered) return undefined;
  return t('coverage_tradeoff', { list: html(coverageList(after, t)) });
}

/** Seconds or minutes between reads, in words. */
export function intervalWords(ms: number, t: Translate): string {
  if (ms < 60_000) return t('every_s', { n: Math.max(1, Math.round(ms / 1000)) });
  return t('every_min', { n: Math.round(ms / 60_000) });
}
