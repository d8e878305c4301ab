/**
 * The filters form's market groups and per-sport minimums (issue 34 item 1, issue 31 item 5): the
 * groups named as the chat names them, and the checks `/filter … markets=… min_profit.<sport>=…`
 * makes beyond the filter's zod schema, so the form cannot save what the chat would refuse.
 */
import { profitRules } from '../bot/parse/filter-args.js';
import { checkBounds } from '../bot/parse/values.js';
import { marketGroupName } from '../bot/ui/filter-text.js';
import type { Translate } from '../locales/i18n.js';
import type { FilterSettings } from '../service/filter-model.js';
import { MARKET_GROUPS, type MarketGroup } from '../service/market-groups.js';
import { kindOf, type Service } from '../service/services.js';

/** Every market group with its name in the user's language, in the chat's order. */
export function marketGroupChoices(t: Translate): { id: MarketGroup; name: string }[] {
  return MARKET_GROUPS.map((id) => ({ id, name: marketGroupName(id, t) }));
}

/**
 * Why the chat would refuse this filter's market groups or per-sport minimums, in words; undefined
 * when it would take them. `sports`: the dictionary (id → name); empty when not loaded yet.
 */
export function formFilterProblem(service: Service, filter: FilterSettings, sports: Readonly<Record<string, string>>, t: Translate): string | undefined {
  if (filter.marketsOff.length > 0 && MARKET_GROUPS.every((g) => filter.marketsOff.includes(g))) return t('miniapp_markets_all_off');
  const bySport = Object.entries(filter.minProfitBySport);
  if (bySport.length === 0) return undefined;
  if (kindOf(service) === 'valuebets') return t('option_not_for_service', { value: 'min_profit.<sport>', service });
  const known = Object.keys(sports).length > 0;
  for (const [id, min] of bySport) {
    const name = sports[id];
    if (known && name === undefined) return t('unknown_sport_ids', { ids: id });
    const r = checkBounds(min, null, profitRules(service));
    if (!r.ok) return `${name ?? id}: ${t(r.problem.key, r.problem.vars)}`;
  }
  return undefined;
}
