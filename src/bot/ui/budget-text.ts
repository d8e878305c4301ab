/**
 * The key's token budget in words, where a user chooses services (/filter's first step, /status,
 * /connect's answer) and after a save: how services share a key's tokens, what each one's coverage
 * means in minutes, when a saved filter is first read, and when a draft is written. Every figure
 * comes from the token planner (src/scheduler/token-plan.ts) and the scheduler's coverage, never a
 * constant of its own, so the words follow LIMIT_TOKENS_PER_HOUR and the planner's rules.
 */
import { escapeHtml } from '../../lib/html.js';
import type { Translate } from '../../locales/i18n.js';
import { serviceLabel } from '../../locales/services.js';
import type { ServiceCoverage } from '../../scheduler/port.js';
import { orderServices, planTokens } from '../../scheduler/token-plan.js';
import { DEFAULT_TUNING } from '../../scheduler/tuning.js';
import { SERVICES, type Service } from '../../service/services.js';
import type { Lang } from '../../store/schema.js';
import { sharePct } from './filter-text.js';
import { formatClockTime, waitWords } from './time-words.js';

/** A first read due within this is "within seconds". */
const SOON_MS = 15_000;

/** "100 % and 50 %": the planner's shares for `count` services, most favoured first. */
function sharesOf(count: number, tokensPerHour: number, t: Translate): string {
  const services = orderServices(SERVICES).slice(0, count);
  const plan = planTokens({ services, tokensPerHour, reserve: DEFAULT_TUNING.tokenReserve, windowMs: DEFAULT_TUNING.tokenTtlMs });
  const shares = services.map((s) => sharePct(plan.services[s]?.share ?? 0));
  return shares.length <= 1 ? (shares[0] ?? '') : `${shares.slice(0, -1).join(', ')} ${t('and_word')} ${shares.at(-1)!}`;
}

/** How a key's token budget is shared by one, two and three services, from the planner. */
export function budgetRule(tokensPerHour: number, t: Translate): string {
  return t('budget_rule', {
    tokens: tokensPerHour,
    ttl: Math.round(DEFAULT_TUNING.tokenTtlMs / 60_000),
    two: sharesOf(2, tokensPerHour, t),
    three: sharesOf(3, tokensPerHour, t),
  });
}

/** One service's coverage and what it means: minutes read per hour, the longest gap. */
export function coverageMeaning(service: Service, cov: ServiceCoverage, t: Translate): string {
  const name = escapeHtml(serviceLabel(service, t));
  if (cov.share >= 1 - 1e-9) return t('cov_full', { service: name });
  if (cov.share <= 0) return t('cov_none', { service: name });
  return t('cov_part', {
    service: name,
    share: sharePct(cov.share),
    on: Math.round(cov.share * 60),
    gap: Math.round((cov.longestGapMs ?? 0) / 60_000),
  });
}

/** Each active service of `coverage` with its meaning, one a line, in the plan's order (the user's `rank` first). */
export function coverageLines(coverage: Partial<Record<Service, ServiceCoverage>>, rank: readonly Service[] | undefined, t: Translate): string {
  return orderServices(SERVICES.filter((s) => coverage[s]?.state === 'active'), rank)
    .map((s) => `• ${coverageMeaning(s, coverage[s]!, t)}`)
    .join('\n');
}

/** When a just-saved filter is first read: within seconds only when it is. */
export function firstReadWords(cov: ServiceCoverage | undefined, now: number, zone: string, lang: Lang, t: Translate): string {
  const at = cov?.nextTokenAt;
  if (!cov || at === undefined || at - now <= SOON_MS) return t('first_read_now');
  return t('first_read_at', { at: formatClockTime(at, zone, lang), wait: waitWords(at - now, t), share: sharePct(cov.share) });
}

/** "at about 05:40 (in 12 min)" for a draft, from its expected time; undefined when unknown. */
export function draftWhen(at: number | undefined, now: number, zone: string, lang: Lang, t: Translate): { at: string; wait: string } | undefined {
  if (at === undefined) return undefined;
  return { at: formatClockTime(Math.max(at, now), zone, lang), wait: waitWords(Math.max(0, at - now), t) };
}
