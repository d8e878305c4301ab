import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { createApi } from './api.js';
import { Books } from './books.js';
import { Ctx, type AppContext } from './context.js';
import { Filters } from './filters.js';
import { html } from './html.js';
import { describeError, translator } from './i18n.js';
import { Ledger } from './ledger.js';
import { applyTheme, readLaunch } from './telegram.js';
import type { Me } from './types.js';

type Tab = 'ledger' | 'filters' | 'books';
const TABS: readonly Tab[] = ['ledger', 'filters', 'books'];

function App({ base, me }: { base: Omit<AppContext, 'me' | 'toast'>; me: Me }) {
  const start = new URLSearchParams(location.search).get('screen');
  const [tab, setTab] = useState<Tab>(TABS.includes(start as Tab) ? (start as Tab) : 'ledger');
  const [toasts, setToasts] = useState<{ id: number; text: string; kind: 'ok' | 'error' }[]>([]);
  const t = base.t;
  const toast = (text: string, kind: 'ok' | 'error' = 'ok') => {
    const id = Date.now() + Math.random();
    setToasts((list) => [...list, { id, text, kind }]);
    setTimeout(() => setToasts((list) => list.filter((x) => x.id !== id)), kind === 'error' ? 8000 : 4000);
  };
  const labels: Record<Tab, string> = { ledger: t('tab_ledger'), filters: t('tab_filters'), books: t('tab_books') };
  return html`<${Ctx.Provider} value=${{ ...base, me, toast }}>
    <nav role="tablist">${TABS.map((x) => html`<button role="tab" aria-selected=${tab === x} data-tab=${x} onClick=${() => setTab(x)}>${labels[x]}</button>`)}</nav>
    <main data-screen=${tab}>${tab === 'ledger' ? html`<${Ledger} />` : tab === 'filters' ? html`<${Filters} />` : html`<${Books} />`}</main>
    <div class="toasts" aria-live="polite">${toasts.map((x) => html`<div class=${`toast ${x.kind}`} role=${x.kind === 'error' ? 'alert' : 'status'}>${x.text}</div>`)}</div>
  </${Ctx.Provider}>`;
}

async function boot(root: HTMLElement) {
  const launch = readLaunch(location.hash, navigator.language);
  applyTheme(document.documentElement, launch.theme);
  document.documentElement.lang = launch.lang;
  let t = translator(launch.lang);
  const api = createApi(launch.initData);
  if (!launch.initData) {
    render(html`<div class="error fatal" role="alert">${t('err_auth')}</div>`, root);
    return;
  }
  // The ledger (the first screen) is asked for beside `me`, not after it: one round trip less on a slow network.
  const firstLedger = api.ledger({});
  firstLedger.catch(() => undefined);
  try {
    const me = await api.me();
    t = translator(me.lang);
    document.documentElement.lang = me.lang;
    render(html`<${App} base=${{ api, t, lang: me.lang, firstLedger }} me=${me} />`, root);
  } catch (e) {
    render(html`<div class="error fatal" role="alert">${describeError(t, e)}</div>`, root);
  }
}

void boot(document.getElementById('app')!);
