import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Api } from './api.js';
import { drawChart } from './chart.js';
import { useApp, type AppContext } from './context.js';
import { html } from './html.js';
import { canDownload } from './telegram.js';
import { describeError, formatMoney, formatPct, parseNumber } from './i18n.js';
import type { ApiPosition, LedgerQuery, LedgerView, SettleBody } from './types.js';

type Undo = { id: string; n: number };

export function Ledger() {
  const ctx = useApp();
  const { api, t, lang, toast } = ctx;
  const [q, setQ] = useState<LedgerQuery>({});
  const first = useRef(ctx.takeFirstLedger());
  const [view, setView] = useState<LedgerView | null>(first.current?.view ?? null);
  const [refreshing, setRefreshing] = useState(first.current?.next !== undefined);
  const [error, setError] = useState('');
  const [undoable, setUndoable] = useState<Undo | null>(null);
  const chartEl = useRef<HTMLDivElement>(null);
  const cardsEl = useRef<HTMLElement>(null);
  const loads = useRef(0);

  const load = () => {
    const given = first.current;
    first.current = undefined;
    if (given && !given.next) return;
    setError('');
    const unfiltered = Object.values(q).every((v) => !v);
    // Only the latest load is shown: an answer overtaken by a later load (a settle tapped on the kept view, a filter changed) is dropped.
    const mine = ++loads.current;
    (given?.next ?? api.ledger(q)).then(
      (v) => {
        if (mine !== loads.current) return;
        // The kept view is usually still right: then the chart is not drawn a second time.
        if (!given || JSON.stringify(v) !== JSON.stringify(given.view)) setView(v);
        setRefreshing(false);
        if (unfiltered && !given) ctx.keepLedger(v);
      },
      (e: unknown) => {
        if (mine !== loads.current) return;
        setRefreshing(false);
        setError(describeError(t, e));
      },
    );
  };
  useEffect(load, [q]);
  // Three cards a row fit a 360 px phone until a sum is long (a turnover of 50 400,75 €): then two a
  // row, measured before the frame is painted so no figure is ever drawn past its card.
  useLayoutEffect(() => {
    const cards = cardsEl.current;
    if (!cards) return;
    cards.classList.remove('two');
    if ([...cards.querySelectorAll('.card b')].some((b) => b.scrollWidth > b.clientWidth + 1)) cards.classList.add('two');
  });
  useEffect(() => {
    if (!view || !chartEl.current || view.days.length === 0) return;
    return drawChart(chartEl.current, view.days, { date: t('date'), pnl: t('pnl'), turnover: t('turnover'), lang });
  }, [view]);

  const failed = error && html`<div class="error" role="alert">${error} <button onClick=${load}>${t('retry')}</button></div>`;
  if (!view) return failed || html`<p class="hint">${t('loading')}</p>`;
  const money = (v: number | null) => (v === null ? '—' : formatMoney(lang, v, view.currency));
  const s = view.summary;
  const set = (key: keyof LedgerQuery) => (e: Event) => setQ({ ...q, [key]: (e.target as HTMLInputElement | HTMLSelectElement).value || undefined });

  const select = (key: 'service' | 'bookmaker' | 'sport', label: string, options: string[]) => html`
    <label>${label}
      <select name=${key} value=${q[key] ?? ''} onChange=${set(key)}>
        <option value="">${t('all')}</option>
        ${options.map((o) => html`<option value=${o}>${o}</option>`)}
      </select>
    </label>`;

  const act = async (p: ApiPosition, run: () => Promise<{ position: ApiPosition }>, done: string, keepUndo: boolean) => {
    try {
      const { position } = await run();
      toast(done);
      setUndoable(keepUndo && position.undo ? { id: position.id, n: position.undo.n } : null);
      load();
    } catch (e) {
      toast(describeError(t, e), 'error');
    }
    return p;
  };
  const settle = (p: ApiPosition, body: SettleBody, label: string) => act(p, () => api.settle(p.id, body), t('settled_toast', { n: p.id, r: label }), true);
  const undo = (u: Undo) => act({ id: u.id } as ApiPosition, () => api.undo(u.id, u.n), t('undone_toast', { n: u.id }), false);

  return html`
    ${failed}
    ${refreshing && html`<p class="hint refreshing" role="status">${t('refreshing')}</p>`}
    <section class="filters-row" aria-busy=${refreshing}>
      <label>${t('from')}<input type="date" name="from" value=${q.from ?? ''} onChange=${set('from')} /></label>
      <label>${t('to')}<input type="date" name="to" value=${q.to ?? ''} onChange=${set('to')} /></label>
      ${select('service', t('service'), view.choices.services)}
      ${select('bookmaker', t('bookmaker'), view.choices.bookmakers)}
      ${select('sport', t('sport'), view.choices.sports)}
    </section>
    <section class="cards" ref=${cardsEl}>
      <div class="card"><span>${t('pnl')}</span><b class=${s.totals.pnl < 0 ? 'neg' : 'pos'}>${money(s.totals.pnl)}</b></div>
      <div class="card"><span>${t('turnover')}</span><b>${money(s.totals.turnover)}</b></div>
      <div class="card"><span>${t('yield')}</span><b>${formatPct(lang, s.totals.yieldPct)}</b></div>
      <div class="card"><span>${t('roi')}</span><b>${formatPct(lang, s.roiOnBankPct)}</b></div>
      <div class="card"><span>${t('clv')}</span><b>${formatPct(lang, s.clv?.meanPct)}</b></div>
      <div class="card"><span>${t('settled')}</span><b>${s.totals.count}</b></div>
      ${s.arbs.count > 0 && html`<div class="card pair" data-testid="arbs-card">
        <div><span>${t('arbs_expected')}</span><b>${money(s.arbs.expected)}</b></div>
        <div><span>${t('arbs_realised', { n: s.arbs.count })}</span><b class=${s.arbs.realised < s.arbs.expected ? 'neg' : 'pos'}>${money(s.arbs.realised)}</b></div>
      </div>`}
    </section>
    ${view.days.length === 0
      ? html`<p class="hint">${t('no_data')}</p>`
      : html`<div class="chart" ref=${chartEl} data-testid="chart"></div><p class="hint">${t('zoom_hint')}</p>`}
    <p class="actions">
      <button class="secondary" onClick=${() => void sendToChat(api, q, ctx)}>${t('csv_send')}</button>
      ${canDownload(location.hash) && html`<button class="secondary" onClick=${() => void download(api, q, ctx)}>${t('csv')}</button>`}
    </p>
    <h2>${t('open_positions')} <small class="hint">${view.openTotal}</small></h2>
    ${undoable && html`<p><button class="secondary" onClick=${() => void undo(undoable)}>${t('undo')} #${undoable.id}</button></p>`}
    ${view.open.length === 0 ? html`<p class="hint">${t('no_open')}</p>` : view.open.map((p) => html`<${Position} key=${p.id} p=${p} onSettle=${settle} onChanged=${load} />`)}
  `;
}

async function sendToChat(api: Api, q: LedgerQuery, ctx: Pick<AppContext, 't' | 'toast'>) {
  try {
    const sent = await api.sendCsv(q);
    ctx.toast(ctx.t('csv_sent', { files: sent.files, legs: sent.legs }));
  } catch (e) {
    ctx.toast(describeError(ctx.t, e), 'error');
  }
}

async function download(api: Api, q: LedgerQuery, ctx: Pick<AppContext, 't' | 'toast'>) {
  try {
    const blob = await api.csv(q);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'ledger.csv';
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  } catch (e) {
    ctx.toast(describeError(ctx.t, e), 'error');
  }
}

/** /open's one-tap results: each outcome won, all void, and for a middle both sides won. */
function choices(p: ApiPosition, t: AppContext['t']): { body: SettleBody; label: string }[] {
  const outcomes = new Map<number, string>();
  for (const l of p.legs) if (l.status === 'placed' && !outcomes.has(l.outcome)) outcomes.set(l.outcome, l.market);
  const list: { body: SettleBody; label: string }[] = [...outcomes].map(([outcome, market]) => ({ body: { result: { outcome } }, label: t('result_won_outcome', { m: market }) }));
  if (p.kind === 'middles') list.push({ body: { result: 'hit' }, label: t('result_hit') });
  list.push({ body: { result: 'void' }, label: t('result_void') });
  return list;
}

function Position({ p, onSettle, onChanged }: { p: ApiPosition; onSettle: (p: ApiPosition, b: SettleBody, label: string) => void; onChanged: () => void }) {
  const { api, t, lang, toast } = useApp();
  const [editing, setEditing] = useState<number | null>(null);
  const [odds, setOdds] = useState('');
  const [stake, setStake] = useState('');
  const save = async (leg: number) => {
    const o = parseNumber(odds);
    const s = parseNumber(stake);
    if ((odds && o === undefined) || (stake && s === undefined)) return toast(t('err_number'), 'error');
    try {
      await api.edit(p.id, { leg, ...(o !== undefined ? { odds: o } : {}), ...(s !== undefined ? { stake: s } : {}) });
      toast(t('edited_toast', { n: p.id }));
      setEditing(null);
      onChanged();
    } catch (e) {
      toast(describeError(t, e), 'error');
    }
  };
  return html`
    <article class="position" data-position=${p.id}>
      <header><b>#${p.id}</b> ${p.event} <small class="hint">${p.sport} · ${p.service}</small></header>
      <ul>
        ${p.legs.map((l) => editing === l.index
          ? html`<li class="edit">${l.bookmaker} · ${l.market}
              <input inputmode="decimal" aria-label=${t('odds')} placeholder=${String(l.odds)} value=${odds} onInput=${(e: Event) => setOdds((e.target as HTMLInputElement).value)} />
              <input inputmode="decimal" aria-label=${t('stake')} placeholder=${String(l.stake)} value=${stake} onInput=${(e: Event) => setStake((e.target as HTMLInputElement).value)} />
              <button onClick=${() => void save(l.index)}>${t('save')}</button><button class="secondary" onClick=${() => setEditing(null)}>${t('cancel')}</button></li>`
          : html`<li>${l.bookmaker} · ${l.market} @ ${l.odds} × ${formatMoney(lang, l.stake, p.currency)} ${l.status !== 'placed' && html`<small class="hint">${l.status}</small>`}
              <button class="link" onClick=${() => { setOdds(''); setStake(''); setEditing(l.index); }}>${t('edit')}</button></li>`)}
      </ul>
      <footer><span class="hint">${t('settle_as')}</span> ${choices(p, t).map((c) => html`<button onClick=${() => onSettle(p, c.body, c.label)}>${c.label}</button>`)}</footer>
    </article>`;
}
