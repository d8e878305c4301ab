import { useEffect, useState } from 'preact/hooks';
import { useApp } from './context.js';
import { html } from './html.js';
import { describeError, parseNumber } from './i18n.js';
import type { BookRow } from './types.js';

export function Books() {
  const { api, t } = useApp();
  const [rows, setRows] = useState<BookRow[] | null>(null);
  const [error, setError] = useState('');
  const load = () => {
    setError('');
    api.books().then((v) => setRows(v.books), (e: unknown) => setError(describeError(t, e)));
  };
  useEffect(load, []);
  if (error) return html`<div class="error" role="alert">${error} <button onClick=${load}>${t('retry')}</button></div>`;
  if (!rows) return html`<p class="hint">${t('loading')}</p>`;
  if (rows.length === 0) return html`<p class="hint">${t('no_books')}</p>`;
  return html`
    <p class="hint">${t('books_hint')}</p>
    <div class="table-wrap"><table class="books">
      <thead><tr><th>${t('bookmaker')}</th><th>${t('commission')}</th><th>${t('max_stake')}</th><th>${t('min_stake')}</th><th>${t('step')}</th><th>${t('status')}</th><th></th></tr></thead>
      <tbody>${rows.map((r) => html`<${Row} key=${r.bookmaker} row=${r} />`)}</tbody>
    </table></div>`;
}

type Field = 'commission' | 'max' | 'min' | 'step';

function Row({ row }: { row: BookRow }) {
  const { api, t, toast } = useApp();
  const [saved, setSaved] = useState(row);
  const [text, setText] = useState<Record<Field, string>>(texts(row));
  const [status, setStatus] = useState(row.status);
  const dirty = status !== saved.status || (Object.keys(text) as Field[]).some((k) => text[k] !== texts(saved)[k]);
  const save = async () => {
    const next: BookRow = { ...saved, status };
    for (const k of Object.keys(text) as Field[]) {
      if (text[k].trim() === '') { next[k] = null; continue; }
      const v = parseNumber(text[k]);
      if (v === undefined) return toast(`${row.bookmaker}: ${t('err_number')}`, 'error');
      next[k] = k === 'commission' ? v / 100 : v;
    }
    if (next.commission !== saved.commission) next.exchangeDefault = false;
    try {
      const answer = await api.saveBook(next);
      setSaved(answer);
      setText(texts(answer));
      setStatus(answer.status);
      toast(t('book_saved', { b: row.bookmaker }));
    } catch (e) {
      toast(describeError(t, e), 'error');
    }
  };
  const labels: Record<Field, string> = { commission: t('commission'), max: t('max_stake'), min: t('min_stake'), step: t('step') };
  const cell = (k: Field) => html`<td data-label=${labels[k]}><input name=${k} inputmode="decimal" value=${text[k]} onInput=${(e: Event) => setText({ ...text, [k]: (e.target as HTMLInputElement).value })} /></td>`;
  return html`<tr data-book=${row.bookmaker}>
    <th scope="row">${row.bookmaker}${saved.exchangeDefault && text.commission === texts(saved).commission && html`<small class="hint default">${t('exchange_default')}</small>`}</th>${cell('commission')}${cell('max')}${cell('min')}${cell('step')}
    <td class="status" data-label=${t('status')}><select name="status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value as BookRow['status'])}>
      <option value="active">${t('status_active')}</option><option value="paused">${t('status_paused')}</option><option value="off">${t('status_off')}</option>
    </select></td>
    <td class="act"><button disabled=${!dirty} onClick=${save}>${t('save')}</button></td></tr>`;
}

function texts(r: BookRow): Record<Field, string> {
  const s = (v: number | null) => (v === null ? '' : String(v));
  return { commission: r.commission === null ? '' : String(Math.round(r.commission * 10_000) / 100), max: s(r.max), min: s(r.min), step: s(r.step) };
}
