import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.js';
import type { T } from './i18n.js';
import type { Lang, Me } from './types.js';

export interface AppContext {
  api: Api;
  t: T;
  lang: Lang;
  me: Me;
  toast(text: string, kind?: 'ok' | 'error'): void;
}

export const Ctx = createContext<AppContext | null>(null);

export function useApp(): AppContext {
  const ctx = useContext(Ctx);
  if (!ctx) throw new Error('outside the app');
  return ctx;
}
