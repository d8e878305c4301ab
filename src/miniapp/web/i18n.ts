import { miniappWebEn, miniappWebRu, type MiniappWebKey } from '../../locales/parts/miniapp-web.js';
import { ApiFailure } from './api.js';
import type { Lang } from './types.js';

export type T = (key: MiniappWebKey, vars?: Record<string, string | number>) => string;

export function translator(lang: Lang): T {
  const table: Record<MiniappWebKey, string> = lang === 'ru' ? miniappWebRu : miniappWebEn;
  return (key, vars) => table[key].replace(/\{(\w+)\}/g, (m, name: string) => (vars && name in vars ? String(vars[name]) : m));
}

/** Every failure in words: the server's own message when it gave one (already in the user's language). */
export function describeError(t: T, err: unknown): string {
  if (err instanceof ApiFailure) {
    if (err.status === 0) return t('err_network');
    if (err.message) return err.message;
    if (err.status === 401 || err.status === 403) return t('err_auth');
    return t('err_generic', { code: err.code });
  }
  return t('err_generic', { code: 'page' });
}

// A formatter is costly to build (tens of them per ledger render, on a slow phone): one per kind.
const formats = new Map<string, Intl.NumberFormat>();
function numberFormat(lang: Lang, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${lang} ${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) formats.set(key, (f = new Intl.NumberFormat(lang, options)));
  return f;
}

export function formatMoney(lang: Lang, v: number, currency: string | null): string {
  try {
    if (currency) return numberFormat(lang, { style: 'currency', currency, maximumFractionDigits: 2 }).format(v);
  } catch {
    // A code Intl does not know (a crypto coin, say): the number, then the code.
  }
  return numberFormat(lang, { maximumFractionDigits: 2 }).format(v) + (currency ? ` ${currency}` : '');
}

/** `pct` in percent (the API's unit: 2.5 means 2.5 %). */
export function formatPct(lang: Lang, pct: number | null | undefined, signed = true): string {
  return pct === null || pct === undefined
    ? '—'
    : numberFormat(lang, { style: 'percent', maximumFractionDigits: 2, signDisplay: signed ? 'exceptZero' : 'auto' }).format(pct / 100);
}

/** Accepts "2.05" and "2,05" (Russian keyboards); undefined for anything that is not a finite number. */
export function parseNumber(text: string): number | undefined {
  const v = Number(text.trim().replace(',', '.'));
  return text.trim() !== '' && Number.isFinite(v) ? v : undefined;
}
