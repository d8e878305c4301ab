/** The filters form's market groups (each on or off) and least profit per sport, as /filter's `markets=` and `min_profit.<sport>=`. */
import { useApp } from './context.js';
import { html } from './html.js';
import { NumberField } from './number-field.js';
import type { Filter, FiltersView } from './types.js';

type Dicts = FiltersView['dictionaries'];
type Group = Dicts['markets'][number]['id'];

/** A chip per group, on = kept; the filter stores the ones left out. */
export function MarketGroups({ service, all, off, onChange }: { service: string; all: Dicts['markets']; off: Group[]; onChange: (off: Group[]) => void }) {
  const { t } = useApp();
  const set = new Set(off);
  const toggle = (g: Group) => onChange(set.has(g) ? off.filter((x) => x !== g) : [...off, g]);
  const state = off.length === 0 ? t('markets_all') : off.length === all.length ? t('markets_none') : t('selected', { n: all.length - off.length, m: all.length });
  return html`
    <fieldset class="picker" data-picker="markets"><legend>${t('markets')} <small class=${off.length === all.length ? 'bad' : 'hint'}>${state}</small></legend>
      <div class="chips">${all.map((g) => html`<label class=${set.has(g.id) ? 'chip' : 'chip on'}><input type="checkbox" name=${`${service}-market-${g.id}`} checked=${!set.has(g.id)} onChange=${() => toggle(g.id)} />${g.name}</label>`)}</div>
    </fieldset>`;
}

/**
 * One field per chosen sport (and per sport that already has its own minimum); with every sport
 * chosen, a list to add one. Empty: the sport takes the filter's profit minimum.
 */
export function SportMinimums({ service, filter, sports, onChange }: { service: string; filter: Filter; sports: Dicts['sports']; onChange: (mins: Filter['minProfitBySport']) => void }) {
  const { t } = useApp();
  const mins = filter.minProfitBySport;
  const names = new Map(sports.map((s) => [String(s.id), s.name]));
  const ids = [...new Set([...filter.sports.map(String), ...Object.keys(mins)])];
  const put = (id: string, v: number | null) => {
    const next = { ...mins };
    if (v === null) delete next[id];
    else next[id] = v;
    onChange(next);
  };
  const add = (e: Event) => {
    const id = (e.target as HTMLSelectElement).value;
    if (id !== '' && mins[id] === undefined) put(id, filter.minProfit);
  };
  return html`
    <fieldset class="by-sport" data-picker="by-sport"><legend>${t('by_sport')} <small class="hint">${t('by_sport_hint')}</small></legend>
      ${ids.map((id) => html`<${NumberField} key=${id} name=${`${service}-minProfit-${id}`} label=${names.get(id) ?? id} value=${mins[id] ?? null} placeholder=${String(filter.minProfit)} onChange=${(v: number | null) => put(id, v)} />`)}
      ${filter.sports.length === 0 && html`<select name=${`${service}-add-sport`} value="" onChange=${add}>
        <option value="">${t('add_sport')}</option>
        ${sports.filter((s) => mins[String(s.id)] === undefined).map((s) => html`<option value=${String(s.id)}>${s.name}</option>`)}
      </select>`}
    </fieldset>`;
}
