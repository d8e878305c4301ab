/** A number input that takes "2.05" and "2,05" and says so when the text is not a number; empty = null. */
import { useState } from 'preact/hooks';
import { useApp } from './context.js';
import { html } from './html.js';
import { parseNumber } from './i18n.js';

export function NumberField({ name, label, value, placeholder = '', onChange }: { name: string; label: string; value: number | null; placeholder?: string; onChange: (v: number | null) => void }) {
  const { t } = useApp();
  const [text, setText] = useState(value === null ? '' : String(value));
  const [bad, setBad] = useState(false);
  return html`<label>${label}
    <input name=${name} inputmode="decimal" value=${text} placeholder=${placeholder} aria-invalid=${bad} title=${bad ? t('err_number') : ''}
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
