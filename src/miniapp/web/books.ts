import { useEffect, useState } from 'preact/hooks';
import { useApp } from './context.js';
import { html } from './html.js';
import { describeError, formatPct, parseNumber } from './i18n.js';
import type { BookRow } from './types.js';

type Settings = BookRow['settings'];
type Field = 'commission' | 'max' | 'min' | 'step';
type Status = NonNullable<Settings['status']>;
const FIELDS: readonly Field[] = ['commission', 'max', 'min', 'step'];
const STATUSES: readonly Status[] = ['ok', 'limited', 'closed'];

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
      <tbody>${rows.map((r) => html`<${Row} key=${r.id} row=${r} />`)}</tbody>
    </table></div>`;
}

function texts(s: Settings): Record<Field, string> {
  return { commission: String(s.commission ?? ''), max: String(s.max ?? ''), min: String(s.min ?? ''), step: String(s.step ?? '') };
}

function Row({ row }: { row: BookRow }) {
  const { api, t, lang, toast } = useApp();
  const [saved, setSaved] = useState(row);
  const [text, setText] = useState(texts(row.settings));
  const [status, setStatus] = useState<Status>(row.settings.status ?? row.status);
  const before = texts(saved.settings);
  const dirty = status !== (saved.settings.status ?? saved.status) || FIELDS.some((k) => text[k] !== before[k]);
  const save = async () => {
    const settings: Settings = { status };
    for (const k of FIELDS) {
      if (text[k].trim() === '') continue;
      const v = parseNumber(text[k]);
      if (v === undefined) return toast(`${row.name}: ${t('err_number')}`, 'error');
      settings[k] = v;
    }
    try {
      const { book } = await api.saveBook(row.id, settings);
      setSaved(book);
      setText(texts(book.settings));
      setStatus(book.settings.status ?? book.status);
      toast(t('book_saved', { b: row.name }));
    } catch (e) {
      toast(describeError(t, e), 'error');
    }
  };
  const labels: Record<Field, string> = { commission: t('commission'), max: t('max_stake'), min: t('min_stake'), step: t('step') };
  const exchange = saved.defaultCommission !== null;
  const cell = (k: Field) => html`<td data-label=${labels[k]}><input name=${k} inputmode="decimal"
    placeholder=${k === 'commission' && exchange ? String(saved.defaultCommission) : ''} value=${text[k]}
    onInput=${(e: Event) => setText({ ...text, [k]: (e.target as HTMLInputElement).value })} /></td>`;
  return html`<tr data-book=${row.name}>
    <th scope="row">${row.name}${exchange && html`<small class=${`hint default${saved.settings.commission === undefined ? ' on' : ''}`}>${t('exchange_default')}: ${formatPct(lang, saved.defaultCommission, false)}</small>`}</th>
    ${FIELDS.map(cell)}
    <td class="status" data-label=${t('status')}><select name="status" value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value as Status)}>
      ${STATUSES.map((s) => html`<option value=${s}>${t(`status_${s}`)}</option>`)}
    </select></td>
    <td class="act"><button disabled=${!dirty} onClick=${save}>${t('save')}</button></td></tr>`;
}
