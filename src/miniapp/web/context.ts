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
  /** The ledger screen's first view, once (later mounts ask the API). */
  takeFirstLedger(): FirstLedger | undefined;
  /** Keeps an unfiltered ledger as the next open's early view (last-view.ts). */
  keepLedger(view: LedgerView): void;
  toast(text: string, kind?: 'ok' | 'error'): void;
}

/**
 * `view` is drawn at once. Without `next` it is the boot call's fresh answer; with `next` it is what
 * this device showed last, marked as refreshing until `next` (the boot call's ledger) replaces it.
 */
export interface FirstLedger {
  view: LedgerView;
  next?: Promise<LedgerView>;
}

export const Ctx = createContext<AppContext | null>(null);

export function useApp(): AppContext {
  const ctx = useContext(Ctx);
  if (!ctx) throw new Error('outside the app');
  return ctx;
}
