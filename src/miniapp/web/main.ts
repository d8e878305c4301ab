import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure, createApi } from './api.js';
import { Books } from './books.js';
import { Ctx, type AppContext, type FirstLedger } from './context.js';
import { Filters } from './filters.js';
import { html } from './html.js';
import { describeError, translator } from './i18n.js';
import { Ledger } from './ledger.js';
import { applyTheme, readLaunch } from './telegram.js';
import { SCREENS, startScreen, takeEarlyBoot, type Screen } from './early-boot.js';
import { forgetLastView, initDataUserId, keepLastView, readLastView } from './last-view.js';
import type { LedgerView, Me } from './types.js';

type Base = Omit<AppContext, 'me' | 'toast' | 'keepLedger'>;

function App({ base, me, start }: { base: Base; me: Me; start: Screen }) {
  const [tab, setTab] = useState<Screen>(start);
  const [toasts, setToasts] = useState<{ id: number; text: string; kind: 'ok' | 'error' }[]>([]);
  const t = base.t;
  const toast = (text: string, kind: 'ok' | 'error' = 'ok') => {
    const id = Date.now() + Math.random();
    setToasts((list) => [...list, { id, text, kind }]);
    setTimeout(() => setToasts((list) => list.filter((x) => x.id !== id)), kind === 'error' ? 8000 : 4000);
  };
  const keepLedger = (ledger: LedgerView) => keepLastView({ me, ledger });
  const labels: Record<Screen, string> = { ledger: t('tab_ledger'), filters: t('tab_filters'), books: t('tab_books') };
  return html`<${Ctx.Provider} value=${{ ...base, me, toast, keepLedger }}>
    <nav role="tablist">${SCREENS.map((x) => html`<button role="tab" aria-selected=${tab === x} data-tab=${x} onClick=${() => setTab(x)}>${labels[x]}</button>`)}</nav>
    <main data-screen=${tab}>${tab === 'ledger' ? html`<${Ledger} />` : tab === 'filters' ? html`<${Filters} />` : html`<${Books} />`}</main>
    <div class="toasts" aria-live="polite">${toasts.map((x) => html`<div class=${`toast ${x.kind}`} role=${x.kind === 'error' ? 'alert' : 'status'}>${x.text}</div>`)}</div>
  </${Ctx.Provider}>`;
}

async function boot(root: HTMLElement) {
  // When the bundle began: the boot call (started in <head>) should be older than this (test/miniapp/page-load.test.ts).
  performance.mark('desk-bundle');
  const launch = readLaunch(location.hash, navigator.language);
  applyTheme(document.documentElement, launch.theme);
  document.documentElement.lang = launch.lang;
  const t = translator(launch.lang);
  if (!launch.initData) {
    render(html`<div class="error fatal" role="alert">${t('err_auth')}</div>`, root);
    return;
  }
  const screen = startScreen(location.search);
  const api = createApi(launch.initData);
  // Usually already on its way: the <head> script (early.ts) started it before this bundle was parsed.
  const answer = api.boot(screen, takeEarlyBoot(launch.initData, screen));
  // A second open draws the ledger this device showed last, at once, until the answer replaces it.
  const last = screen === 'ledger' ? readLastView(initDataUserId(launch.initData)) : undefined;
  const next = last && answer.then((a) => a.ledger ?? api.ledger({}));
  // A refused launch replaces the screen before the ledger screen takes `next`: its failure is shown below, not left unhandled.
  next?.catch(() => undefined);
  let firstLedger: FirstLedger | undefined = last && next && { view: last.ledger, next };
  const takeFirstLedger = () => {
    const given = firstLedger;
    firstLedger = undefined;
    return given;
  };
  const show = (me: Me) => {
    document.documentElement.lang = me.lang;
    render(html`<${App} base=${{ api, t: translator(me.lang), lang: me.lang, takeFirstLedger }} me=${me} start=${screen} />`, root);
  };
  if (last) show(last.me);
  else render(html`<p class="hint">${t('loading')}</p>`, root);
  try {
    const fresh = await answer;
    if (fresh.ledger) {
      keepLastView({ me: fresh.me, ledger: fresh.ledger });
      if (!last) firstLedger = { view: fresh.ledger };
    }
    show(fresh.me);
  } catch (e) {
    const refused = e instanceof ApiFailure && (e.status === 401 || e.status === 403);
    // Refused: nothing kept may stay on screen or on the device. Unreachable: the kept view stays, with the ledger's own error.
    if (refused) forgetLastView();
    if (refused || !last) render(html`<div class="error fatal" role="alert">${describeError(t, e)}</div>`, root);
  }
}

void boot(document.getElementById('app')!);
