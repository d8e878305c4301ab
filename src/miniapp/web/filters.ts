import { useEffect, useRef, useState } from 'preact/hooks';
import { useApp } from './context.js';
import { html } from './html.js';
import { describeError, formatPct, parseNumber } from './i18n.js';
import type { Coverage, FiltersView, ServiceFilter } from './types.js';

const EMPTY: ServiceFilter = { sports: [], bookmakers: [], minProfit: null, maxProfit: null, minOdds: null, maxOdds: null, maxHoursAhead: null };

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
  return html`${Object.keys(view.filters).map((service) => html`<${ServiceForm} key=${service} service=${service} view=${view} />`)}`;
}

function ServiceForm({ service, view }: { service: string; view: FiltersView }) {
  const { api, t, lang } = useApp();
  const [f, setF] = useState<ServiceFilter>(view.filters[service] ?? EMPTY);
  const [coverage, setCoverage] = useState<Coverage | null>(view.coverage[service] ?? null);
  const [state, setState] = useState<{ text: string; kind: 'ok' | 'warn' | 'error' } | null>(null);
  const first = useRef(true);

  // Coverage follows the edits, a beat after the last one, so typing does not send a request per key.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    setCoverage(null);
    const timer = setTimeout(() => api.coverage(service, f).then(setCoverage, () => setCoverage(view.coverage[service] ?? null)), 300);
    return () => clearTimeout(timer);
  }, [f]);

  const save = async (e: Event) => {
    e.preventDefault();
    try {
      const answer = await api.saveFilter(service, f);
      setCoverage(answer.coverage);
      setState(answer.state === 'saved' ? { text: t('saved'), kind: 'ok' } : { text: answer.message ?? t('draft'), kind: 'warn' });
    } catch (err) {
      setState({ text: describeError(t, err), kind: 'error' });
    }
  };
  const range = (label: string, lo: keyof ServiceFilter, hi: keyof ServiceFilter | null) => html`
    <fieldset class="range"><legend>${label}</legend>
      <${NumberField} name=${`${service}-${lo}`} label=${hi ? t('min') : ''} value=${f[lo] as number | null} onChange=${(v: number | null) => setF({ ...f, [lo]: v })} />
      ${hi && html`<${NumberField} name=${`${service}-${hi}`} label=${t('max')} value=${f[hi] as number | null} onChange=${(v: number | null) => setF({ ...f, [hi]: v })} />`}
    </fieldset>`;

  return html`
    <form class="service-form" data-service=${service} onSubmit=${save}>
      <h2>${service}</h2>
      ${!view.filters[service] && html`<p class="hint">${t('filter_none')}</p>`}
      <${Picker} name="sports" label=${t('sport')} all=${view.dictionaries.sports} chosen=${f.sports} onChange=${(sports: string[]) => setF({ ...f, sports })} />
      <${Picker} name="bookmakers" label=${t('bookmaker')} all=${view.dictionaries.bookmakers} chosen=${f.bookmakers} onChange=${(bookmakers: string[]) => setF({ ...f, bookmakers })} />
      ${range(t('profit'), 'minProfit', 'maxProfit')}
      ${range(t('odds_range'), 'minOdds', 'maxOdds')}
      ${range(t('hours_ahead'), 'maxHoursAhead', null)}
      <p class="coverage" aria-live="polite">${coverage ? t('coverage', { p: formatPct(lang, coverage.share).replace(/^\+/, '') }) + (coverage.note ? ` · ${coverage.note}` : '') : t('coverage_wait')}</p>
      ${state && html`<p class=${`state ${state.kind}`} role="status">${state.text}</p>`}
      <button type="submit">${t('save')}</button>
    </form>`;
}

function NumberField({ name, label, value, onChange }: { name: string; label: string; value: number | null; onChange: (v: number | null) => void }) {
  const { t } = useApp();
  const [text, setText] = useState(value === null ? '' : String(value));
  const [bad, setBad] = useState(false);
  return html`<label>${label}
    <input name=${name} inputmode="decimal" value=${text} aria-invalid=${bad} title=${bad ? t('err_number') : ''}
      onInput=${(e: Event) => {
        const s = (e.target as HTMLInputElement).value;
        setText(s);
        const v = parseNumber(s);
        setBad(s.trim() !== '' && v === undefined);
        if (s.trim() === '') onChange(null);
        else if (v !== undefined) onChange(v);
      }} />
    ${bad && html`<small class="bad">${t('err_number')}</small>`}</label>`;
}

function Picker({ name, label, all, chosen, onChange }: { name: string; label: string; all: string[]; chosen: string[]; onChange: (v: string[]) => void }) {
  const { t } = useApp();
  const [search, setSearch] = useState('');
  const needle = search.trim().toLowerCase();
  const shown = needle ? all.filter((x) => x.toLowerCase().includes(needle)) : all;
  const set = new Set(chosen);
  const toggle = (x: string) => onChange(set.has(x) ? chosen.filter((c) => c !== x) : [...chosen, x]);
  return html`
    <fieldset class="picker" data-picker=${name}><legend>${label} <small class="hint">${t('selected', { n: chosen.length, m: all.length })}</small></legend>
      <div class="picker-bar">
        <input type="search" placeholder=${t('search')} value=${search} onInput=${(e: Event) => setSearch((e.target as HTMLInputElement).value)} />
        <button type="button" class="secondary" onClick=${() => onChange([...new Set([...chosen, ...shown])])}>${t('select_all')}</button>
        <button type="button" class="secondary" onClick=${() => onChange(chosen.filter((c) => !shown.includes(c)))}>${t('clear')}</button>
      </div>
      <div class="chips">${shown.map((x) => html`<label class=${set.has(x) ? 'chip on' : 'chip'}><input type="checkbox" checked=${set.has(x)} onChange=${() => toggle(x)} />${x}</label>`)}</div>
    </fieldset>`;
}
