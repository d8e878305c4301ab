import { useEffect, useRef, useState } from 'preact/hooks';
import { drawChart } from './chart.js';
import { useApp } from './context.js';
import { html } from './html.js';
import { describeError, formatMoney, formatPct, parseNumber } from './i18n.js';
import type { LedgerQuery, LedgerView, OpenPosition } from './types.js';
import type { MiniappWebKey } from '../../locales/parts/miniapp-web.js';

export function Ledger() {
  const { api, t, lang, me, toast } = useApp();
  const [q, setQ] = useState<LedgerQuery>({});
  const [view, setView] = useState<LedgerView | null>(null);
  const [error, setError] = useState('');
  const [undoable, setUndoable] = useState<OpenPosition | null>(null);
  const chartEl = useRef<HTMLDivElement>(null);

  const load = () => {
    setError('');
    api.ledger(q).then(setView, (e: unknown) => setError(describeError(t, e)));
  };
  useEffect(load, [q]);
  useEffect(() => {
    if (!view || !chartEl.current || view.series.length === 0) return;
    return drawChart(chartEl.current, view.series, { date: t('date'), pnl: t('pnl'), turnover: t('turnover') });
  }, [view]);

  if (error) return html`<div class="error" role="alert">${error} <button onClick=${load}>${t('retry')}</button></div>`;
  if (!view) return html`<p class="hint">${t('loading')}</p>`;
  const money = (v: number | null) => (v === null ? '—' : formatMoney(lang, v, me.currency));
  const s = view.summary;

  const select = (key: 'service' | 'bookmaker' | 'sport', label: string, options: string[]) => html`
    <label>${label}
      <select name=${key} value=${q[key] ?? ''} onChange=${(e: Event) => setQ({ ...q, [key]: (e.target as HTMLSelectElement).value || undefined })}>
        <option value="">${t('all')}</option>
        ${options.map((o) => html`<option value=${o}>${o}</option>`)}
      </select>
    </label>`;

  const settle = async (p: OpenPosition, result: string) => {
    try {
      await api.settle(p.id, result);
      toast(t('settled_toast', { n: p.number, r: resultLabel(result) }));
      setUndoable(p);
      load();
    } catch (e) {
      toast(describeError(t, e), 'error');
    }
  };
  const undo = async () => {
    if (!undoable) return;
    try {
      await api.undo(undoable.id);
      toast(t('undone_toast', { n: undoable.number }));
      setUndoable(null);
      load();
    } catch (e) {
      toast(describeError(t, e), 'error');
    }
  };
  const resultLabel = (r: string) => {
    const key = `result_${r}` as MiniappWebKey;
    return key in { result_win: 1, result_loss: 1, result_void: 1, result_half_win: 1, result_half_loss: 1 } ? t(key) : r;
  };

  return html`
    <section class="filters-row">
      <label>${t('from')}<input type="date" name="from" value=${q.from ?? ''} onChange=${(e: Event) => setQ({ ...q, from: (e.target as HTMLInputElement).value || undefined })} /></label>
      <label>${t('to')}<input type="date" name="to" value=${q.to ?? ''} onChange=${(e: Event) => setQ({ ...q, to: (e.target as HTMLInputElement).value || undefined })} /></label>
      ${select('service', t('service'), view.choices.services)}
      ${select('bookmaker', t('bookmaker'), view.choices.bookmakers)}
      ${select('sport', t('sport'), view.choices.sports)}
    </section>
    <section class="cards">
      <div class="card"><span>${t('pnl')}</span><b class=${s.pnl < 0 ? 'neg' : 'pos'}>${money(s.pnl)}</b></div>
      <div class="card"><span>${t('turnover')}</span><b>${money(s.turnover)}</b></div>
      <div class="card"><span>${t('yield')}</span><b>${formatPct(lang, s.yield)}</b></div>
      <div class="card"><span>${t('roi')}</span><b>${formatPct(lang, s.roi)}</b></div>
      <div class="card"><span>${t('clv')}</span><b>${formatPct(lang, s.clv)}</b></div>
      <div class="card wide"><span>${t('expected')} / ${t('realised')}</span><b>${money(s.expected)} / ${money(s.realised)}</b></div>
    </section>
    ${view.series.length === 0
      ? html`<p class="hint">${t('no_data')}</p>`
      : html`<div class="chart" ref=${chartEl} data-testid="chart"></div><p class="hint">${t('zoom_hint')}</p>`}
    <p><button class="secondary" onClick=${() => void download(api, q, t, toast)}>${t('csv')}</button></p>
    <h2>${t('open_positions')}</h2>
    ${undoable && html`<p><button class="secondary" onClick=${undo}>${t('undo')} #${undoable.number}</button></p>`}
    ${view.open.length === 0 ? html`<p class="hint">${t('no_open')}</p>` : view.open.map((p) => html`<${Position} key=${p.id} p=${p} onSettle=${settle} onChanged=${load} resultLabel=${resultLabel} />`)}
  `;
}

async function download(api: ReturnType<typeof useApp>['api'], q: LedgerQuery, t: ReturnType<typeof useApp>['t'], toast: ReturnType<typeof useApp>['toast']) {
  try {
    const blob = await api.csv(q);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'ledger.csv';
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  } catch (e) {
    toast(describeError(t, e), 'error');
  }
}

function Position({ p, onSettle, onChanged, resultLabel }: { p: OpenPosition; onSettle: (p: OpenPosition, r: string) => void; onChanged: () => void; resultLabel: (r: string) => string }) {
  const { api, t, toast } = useApp();
  const [editing, setEditing] = useState<number | null>(null);
  const [odds, setOdds] = useState('');
  const [stake, setStake] = useState('');
  const save = async (leg: number) => {
    const o = parseNumber(odds);
    const s = parseNumber(stake);
    if ((odds && o === undefined) || (stake && s === undefined)) return toast(t('err_number'), 'error');
    try {
      await api.edit(p.id, { leg, ...(o !== undefined ? { odds: o } : {}), ...(s !== undefined ? { stake: s } : {}) });
      toast(t('edited_toast', { n: p.number }));
      setEditing(null);
      onChanged();
    } catch (e) {
      toast(describeError(t, e), 'error');
    }
  };
  return html`
    <article class="position" data-position=${p.number}>
      <header><b>#${p.number}</b> ${p.event} <small class="hint">${p.service}</small></header>
      <ul>
        ${p.legs.map((l, i) => editing === i
          ? html`<li class="edit">${l.bookmaker}
              <input inputmode="decimal" aria-label=${t('odds')} placeholder=${String(l.odds)} value=${odds} onInput=${(e: Event) => setOdds((e.target as HTMLInputElement).value)} />
              <input inputmode="decimal" aria-label=${t('stake')} placeholder=${String(l.stake)} value=${stake} onInput=${(e: Event) => setStake((e.target as HTMLInputElement).value)} />
              <button onClick=${() => void save(i)}>${t('save')}</button><button class="secondary" onClick=${() => setEditing(null)}>${t('cancel')}</button></li>`
          : html`<li>${l.bookmaker} @ ${l.odds} × ${l.stake} <small class="hint">${l.status}</small>
              <button class="link" onClick=${() => { setOdds(''); setStake(''); setEditing(i); }}>${t('edit')}</button></li>`)}
      </ul>
      <footer><span class="hint">${t('settle_as')}</span> ${p.results.map((r) => html`<button onClick=${() => onSettle(p, r)}>${resultLabel(r)}</button>`)}</footer>
    </article>`;
}
