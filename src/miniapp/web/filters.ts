import { useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from './context.js';
import { html } from './html.js';
import { describeError, formatPct } from './i18n.js';
import { MarketGroups, SportMinimums } from './filter-markets.js';
import { NumberField } from './number-field.js';
import type { Coverage, Filter, FiltersView } from './types.js';

type Entry = FiltersView['services'][number];
type Named = { id: number; name: string };

export function Filters() {
  const { api, t } = useApp();
  const [view, setView] = useState<FiltersView | null>(null);
  const [error, setError] = useState('');
  const load = () => {
    setError('');
    api.filters().then(setView, (e: unknown) => setError(describeError(t, e)));
  };
  useEffect(load, []);
  if (error) return html`<div class="error" role="alert">${error} <button onClick=${load}>${t('retry')}</button></div>`;
  if (!view) return html`<p class="hint">${t('loading')}</p>`;
  return html`${view.services.map((entry) => html`<${ServiceForm} key=${entry.service} entry=${entry} dictionaries=${view.dictionaries} />`)}`;
}

function ServiceForm({ entry, dictionaries }: { entry: Entry; dictionaries: FiltersView['dictionaries'] }) {
  const { api, t, lang } = useApp();
  const { service } = entry;
  const [f, setF] = useState<Filter>(entry.draft ?? entry.filter);
  const [coverage, setCoverage] = useState<Coverage | null>(entry.coverage);
  const [state, setState] = useState<{ text: string; kind: 'ok' | 'warn' | 'error' } | null>(null);
  const first = useRef(true);

  // Coverage follows the edits, a beat after the last one, so typing does not send a request per key.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    setCoverage(null);
    const timer = setTimeout(() => api.coverage(service, f).then(setCoverage, () => setCoverage(entry.coverage)), 300);
    return () => clearTimeout(timer);
  }, [f]);

  const save = async (e: Event) => {
    e.preventDefault();
    try {
      const answer = await api.saveFilter(service, f);
      setCoverage(answer.coverage);
      setState(answer.saved === 'saved' ? { text: t('saved'), kind: 'ok' } : { text: t('draft'), kind: 'warn' });
    } catch (err) {
      setState({ text: describeError(t, err), kind: 'error' });
    }
  };
  type NumKey = 'minProfit' | 'maxProfit' | 'minOdds' | 'maxOdds' | 'hoursToStart' | 'minOvervalue';
  // minProfit is never empty in the filter model: a cleared field means its default, 0.
  const put = (k: NumKey, v: number | null) => setF({ ...f, [k]: k === 'minProfit' ? (v ?? 0) : v });
  const range = (label: string, lo: NumKey, hi: NumKey | null) => html`
    <fieldset class="range"><legend>${label}</legend>
      <${NumberField} name=${`${service}-${lo}`} label=${hi ? t('min') : ''} value=${f[lo]} onChange=${(v: number | null) => put(lo, v)} />
      ${hi && html`<${NumberField} name=${`${service}-${hi}`} label=${t('max')} value=${f[hi]} onChange=${(v: number | null) => put(hi, v)} />`}
    </fieldset>`;
  const coverageText = !coverage
    ? t('coverage_wait')
    : coverage.share === null
      ? t('coverage_unknown')
      : [t('coverage', { p: formatPct(lang, coverage.share * 100, false) }), coverage.intervalSeconds !== null ? t('coverage_every', { s: coverage.intervalSeconds }) : '', coverage.fits ? '' : t('coverage_unfit')].filter(Boolean).join(' · ');

  return html`
    <form class="service-form" data-service=${service} onSubmit=${save}>
      <h2>${service}</h2>
      ${entry.draft && html`<p class="hint">${t('draft_kept')}</p>`}
      <${Picker} name="sports" label=${t('sport')} all=${dictionaries.sports} chosen=${f.sports} onChange=${(sports: number[]) => setF({ ...f, sports })} />
      <${Picker} name="bookmakers" label=${t('bookmaker')} all=${dictionaries.bookmakers} chosen=${f.bookmakers} onChange=${(bookmakers: number[]) => setF({ ...f, bookmakers })} />
      ${range(t('profit'), 'minProfit', 'maxProfit')}
      ${range(t('odds_range'), 'minOdds', 'maxOdds')}
      ${range(t('hours_ahead'), 'hoursToStart', null)}
      ${service.startsWith('valuebets') && range(t('overvalue'), 'minOvervalue', null)}
      <${MarketGroups} service=${service} all=${dictionaries.markets} off=${f.marketsOff} onChange=${(marketsOff: Filter['marketsOff']) => setF({ ...f, marketsOff })} />
      ${!service.startsWith('valuebets') && html`<${SportMinimums} service=${service} filter=${f} sports=${dictionaries.sports} onChange=${(minProfitBySport: Filter['minProfitBySport']) => setF({ ...f, minProfitBySport })} />`}
      <p class="coverage" aria-live="polite">${coverageText}</p>
      ${state && html`<p class=${`state ${state.kind}`} role="status">${state.text}</p>`}
      <button type="submit">${t('save')}</button>
    </form>`;
}

/** Ids from a dictionary; none chosen means all (the filter model's rule), which the count says. */
function Picker({ name, label, all, chosen, onChange }: { name: string; label: string; all: Named[]; chosen: number[]; onChange: (v: number[]) => void }) {
  const { t } = useApp();
  const [search, setSearch] = useState('');
  const needle = search.trim().toLowerCase();
  const shown = (needle ? all.filter((x) => x.name.toLowerCase().includes(needle)) : all).map((x) => x.id);
  const names = new Map(all.map((x) => [x.id, x.name]));
  const set = new Set(chosen);
  const toggle = (x: number) => onChange(set.has(x) ? chosen.filter((c) => c !== x) : [...chosen, x]);
  return html`
    <fieldset class="picker" data-picker=${name}><legend>${label} <small class="hint">${chosen.length === 0 ? t('all') : t('selected', { n: chosen.length, m: all.length })}</small></legend>
      <div class="picker-bar">
        <input type="search" placeholder=${t('search')} value=${search} onInput=${(e: Event) => setSearch((e.target as HTMLInputElement).value)} />
        <button type="button" class="secondary" onClick=${() => onChange([...new Set([...chosen, ...shown])])}>${t('select_all')}</button>
        <button type="button" class="secondary" onClick=${() => onChange(chosen.filter((c) => !shown.includes(c)))}>${t('clear')}</button>
      </div>
      <div class="chips">${shown.map((x) => html`<label class=${set.has(x) ? 'chip on' : 'chip'}><input type="checkbox" checked=${set.has(x)} onChange=${() => toggle(x)} />${names.get(x)}</label>`)}</div>
    </fieldset>`;
}
