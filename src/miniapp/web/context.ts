import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.js';
import type { T } from './i18n.js';
import type { Lang, LedgerView, Me } from './types.js';

export interface AppContext {
  api: Api;
  t: T;
  lang: Lang;
  me: Me;
  /** The unfiltered ledger, asked for while the page started; used once. */
  firstLedger?: Promise<LedgerView>;
  toast(text: string, kind?: 'ok' | 'error'): void;
}

export const Ctx = createContext<AppContext | null>(null);

export function useApp(): AppContext {
  const ctx = useContext(Ctx);
  if (!ctx) throw new Error('outside the app');
  return ctx;
}
