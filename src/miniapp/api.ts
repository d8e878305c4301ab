/**
 * The Mini App's JSON API under /app/api/ (contract.ts): the ledger, its settle / undo / edit, the
 * CSV, the bookmakers, the filters. Every call is the user Telegram signed (init-data.ts) and acts
 * only on that user's records, through the same store functions as the chat's commands. Errors are
 * words in the user's language, never a stack; the body is capped before it is read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../clock.js';
import { settle } from '../ledger/actions.js';
import { editLegValues, settleLegs, undoChange, withUndo, UNDO_WINDOW_MS } from '../ledger/edits.js';
import type { Position } from '../ledger/model.js';
import { pickLang, translator } from '../locales/i18n.js';
import type { Logger } from '../logger.js';
import { applyBookChange } from '../bot/parse/book-args.js';
import { defaultCommissionPct, isKnownExchange } from '../alerts/leg-pricing.js';
import type { Store } from '../store/port.js';
import {
  API_PREFIX,
  bookIdSchema,
  bookPutBodySchema,
  coverageBodySchema,
  filterPutBodySchema,
  type Coverage,
  editBodySchema,
  ledgerQuerySchema,
  positionIdSchema,
  settleBodySchema,
  undoBodySchema,
  type BookRow,
  type Lang,
} from './contract.js';
import { ApiFailure, parse, readJson, sendJson, STATUS } from './api-http.js';
import { withBoot } from './api-boot.js';
import { apiPosition, ledgerAnswer } from './ledger-answer.js';
import { createLedgerFile, type LedgerFileOptions } from './ledger-file.js';
import { checkInitData, initDataOf } from './init-data.js';
import { formFilterProblem, marketGroupChoices } from './filter-form.js';
import type { SaveOutcome } from '../bot/actions/save-filter.js';
import type { FilterSettings } from '../service/filter-model.js';
import { isService, SERVICES, type Service } from '../service/services.js';
import type { ServiceCoverage } from '../scheduler/port.js';

/** Requests one user may make in a minute (a page load makes 2 or 3; a busy minute of edits a few dozen). */
export const REQUESTS_PER_MINUTE = 120;

export interface MiniAppApiOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  botToken: string;
  maxAgeSeconds: number;
  /** The dictionaries' bookmakers (id → name), in the user's language when the client has them. */
  bookmakers(lang: Lang): Readonly<Record<string, string>>;
  /** The dictionaries' sports (id → name). */
  sports(lang: Lang): Readonly<Record<string, string>>;
  /** /filter's save path (drafts when the budget refuses) and the planner's coverage, as the chat uses them. */
  filters: {
    save(userId: number, service: Service, settings: FilterSettings): Promise<SaveOutcome>;
    coverage(userId: number, extra?: Service): Partial<Record<Service, ServiceCoverage>>;
  };
  /** The CSV's cap (the chat's report cap) and its way to the user's chat. */
  reports: Omit<LedgerFileOptions, 'store'>;
}

/** A sliding minute of request times per user (injected clock: tests step it). */
function createCaps(clock: Clock): (userId: number) => boolean {
  const seen = new Map<number, number[]>();
  return (userId) => {
    const now = clock.now();
    const times = (seen.get(userId) ?? []).filter((at) => now - at < 60_000);
    if (times.length >= REQUESTS_PER_MINUTE) {
      seen.set(userId, times);
      return false;
    }
    times.push(now);
    seen.set(userId, times);
    if (seen.size > 10_000) for (const [id, ts] of seen) if (ts.every((at) => now - at >= 60_000)) seen.delete(id);
    return true;
  };
}

export type MiniAppApi = (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams) => void;

export function createMiniAppApi(opts: MiniAppApiOptions): MiniAppApi {
  const allow = createCaps(opts.clock);
  const file = createLedgerFile({ store: opts.store, ...opts.reports });

  const handle = async (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, lang: { value: Lang }): Promise<void> => {
    let t = translator(lang.value);
    const check = checkInitData(initDataOf(req.headers.authorization), opts.botToken, opts.maxAgeSeconds, opts.clock.now());
    if (!check.ok) {
      req.resume();
      throw new ApiFailure(check.reason === 'expired' ? 'expired' : 'unauthorized', t(check.reason === 'expired' ? 'miniapp_err_expired' : 'miniapp_err_unauthorized'));
    }
    const userId = check.user.id;
    const user = opts.store.getUser(userId);
    lang.value = user?.lang ?? pickLang(check.user.languageCode);
    t = translator(lang.value);
    if (!allow(userId)) {
      req.resume();
      throw new ApiFailure('too_many', t('miniapp_err_too_many'));
    }
    const route = path.slice(API_PREFIX.length);
    const method = req.method ?? 'GET';
    const only = (m: string) => {
      if (method !== m) {
        req.resume();
        throw new ApiFailure('method_not_allowed', t('miniapp_err_method_not_allowed', { method }));
      }
    };
    const now = opts.clock.now();

    if (route === '/me') {
      only('GET');
      const services = Object.keys(user?.filters ?? {});
      return sendJson(res, 200, {
        userId,
        lang: lang.value,
        currency: (await opts.store.ledger.settings(userId)).currency,
        services,
        keyStored: user?.key !== null && user?.key !== undefined,
        timeZone: user?.timeZone ?? 'UTC',
      });
    }
    if (route === '/ledger') {
      only('GET');
      const q = parse(ledgerQuerySchema, Object.fromEntries(query), t);
      // The open ones first: the book's index is read before anything else awaits.
      const open = await opts.store.ledger.open(userId);
      const book = await opts.store.ledger.book(userId);
      return sendJson(res, 200, ledgerAnswer(book, open, q, now));
    }
    if (route === '/ledger.csv') {
      only('GET');
      return file.download(res, userId, parse(ledgerQuerySchema, Object.fromEntries(query), t), now, t, lang.value);
    }
    if (route === '/ledger.csv/send') {
      only('POST');
      return sendJson(res, 200, await file.send(req, userId, parse(ledgerQuerySchema, Object.fromEntries(query), t), now, t, lang.value));
    }
    const action = /^\/positions\/([^/]+)\/(settle|undo|edit)$/.exec(route);
    if (action) {
      only('POST');
      const body = await readJson(req, t);
      const id = parse(positionIdSchema, action[1], t);
      // Only this user's book is read: another user's id is simply not found here.
      const p = await opts.store.ledger.position(userId, id);
      if (!p) throw new ApiFailure('not_found', t('miniapp_err_not_found', { what: `#${id}` }));
      let next: Position | undefined;
      if (action[2] === 'settle') {
        const b = parse(settleBodySchema, body, t);
        next = 'result' in b ? settle(p, b.result, now) : settleLegs(p, b.legs.map((r) => (r === null ? null : { result: r })), now);
        if (!next) throw new ApiFailure('conflict', t('miniapp_not_settleable', { id }));
        next = withUndo(p, next, now);
      } else if (action[2] === 'undo') {
        const b = parse(undoBodySchema, body, t);
        const r = undoChange(p, b.n, now);
        if (!r.ok) throw new ApiFailure('conflict', t('miniapp_undo_refused', { id, min: UNDO_WINDOW_MS / 60_000 }));
        next = r.position;
      } else {
        const b = parse(editBodySchema, body, t);
        const leg = p.legs[b.leg];
        let book2: { bookmaker?: string; commission?: number } = {};
        if (b.bookmaker !== undefined && leg && b.bookmaker !== leg.bookmaker) {
          book2 = { bookmaker: b.bookmaker, commission: defaultCommissionPct(b.bookmaker) / 100 };
        }
        next = leg && editLegValues(p, b.leg, { odds: b.odds ?? leg.odds, stake: b.stake ?? leg.stake, ...book2 });
        if (!next) throw new ApiFailure('conflict', t('miniapp_not_editable', { id, n: b.leg + 1 }));
        next = withUndo(p, next, now);
      }
      const stored = await opts.store.ledger.put(userId, next);
      return sendJson(res, 200, { position: apiPosition(stored, await opts.store.ledger.settings(userId), now) });
    }
    if (route === '/filters') {
      only('GET');
      const coverage = opts.filters.coverage(userId);
      const names = (m: Readonly<Record<string, string>>) => Object.entries(m).map(([id, name]) => ({ id: Number(id), name }));
      const services = SERVICES.filter((s) => user?.filters[s] !== undefined || user?.drafts[s] !== undefined);
      return sendJson(res, 200, {
        services: services.map((s) => ({
          service: s,
          filter: (user?.filters[s] ?? user?.drafts[s])!.settings,
          draft: user?.drafts[s]?.settings ?? null,
          coverage: coverageOf(coverage[s] ?? opts.filters.coverage(userId, s)[s]),
        })),
        dictionaries: { sports: names(opts.sports(lang.value)), bookmakers: names(opts.bookmakers(lang.value)), markets: marketGroupChoices(t) },
      });
    }
    if (route === '/filters/coverage') {
      only('POST');
      const b = parse(coverageBodySchema, await readJson(req, t), t);
      if (!isService(b.service)) throw new ApiFailure('not_found', t('miniapp_err_not_found', { what: b.service }));
      return sendJson(res, 200, coverageOf(opts.filters.coverage(userId, b.service)[b.service]));
    }
    const filterRoute = /^\/filters\/([^/]+)$/.exec(route);
    if (filterRoute) {
      only('PUT');
      const body = await readJson(req, t);
      const service = filterRoute[1]!;
      if (!isService(service)) throw new ApiFailure('not_found', t('miniapp_err_not_found', { what: service.slice(0, 32) }));
      const b = parse(filterPutBodySchema, body, t);
      const problem = formFilterProblem(service, b.filter, opts.sports(lang.value), t);
      if (problem !== undefined) throw new ApiFailure('bad_request', problem);
      const outcome = await opts.filters.save(userId, service, b.filter);
      if (outcome.kind === 'no_key') throw new ApiFailure('conflict', t('miniapp_filter_no_key'));
      if (outcome.kind === 'capped') throw new ApiFailure('too_many', t('miniapp_filter_capped', { min: Math.ceil(outcome.waitMs / 60_000) }));
      if (outcome.kind === 'error') throw new ApiFailure('conflict', t('miniapp_filter_error', { kind: outcome.errorKind }));
      return sendJson(res, 200, { saved: outcome.kind, filter: b.filter, coverage: coverageOf(opts.filters.coverage(userId)[service]) });
    }
    if (route === '/books') {
      only('GET');
      const names = opts.bookmakers(lang.value);
      return sendJson(res, 200, { books: bookRows(user?.books ?? {}, names, listedBookIds(user, names)) });
    }
    const bookRoute = /^\/books\/([^/]+)$/.exec(route);
    if (bookRoute) {
      only('PUT');
      const body = await readJson(req, t);
      const id = parse(bookIdSchema, bookRoute[1], t);
      const b = parse(bookPutBodySchema, body, t);
      const names = opts.bookmakers(lang.value);
      const name = names[id];
      if (name === undefined) throw new ApiFailure('not_found', t('miniapp_book_unknown', { value: id }));
      // A row of the table is the bookmaker's whole setting: reset, then set what the row holds.
      const cleared = applyBookChange(user?.books ?? {}, { bookmakerId: Number(id), name, reset: true });
      const next = cleared.ok ? applyBookChange(cleared.value, { bookmakerId: Number(id), name, reset: false, set: b.settings }, user?.roundingStep) : cleared;
      if (!next.ok) throw new ApiFailure('conflict', t(next.problem.key, next.problem.vars));
      const stored = opts.store.updateUser(userId, (draft) => {
        draft.books = next.value;
      }, { chatId: userId, lang: lang.value });
      return sendJson(res, 200, { book: bookRows(stored.books, names, [id])[0] });
    }
    req.resume();
    throw new ApiFailure('not_found', t('miniapp_err_not_found', { what: path }));
  };

  return withBoot((req, res, path, query) => {
    const lang = { value: 'en' as Lang };
    handle(req, res, path, query, lang).catch((err: unknown) => {
      if (res.headersSent) {
        // A file cut short must not look whole: the download fails instead.
        opts.logger.warn({ err, path }, 'mini app answer failed after it began');
        if (!res.writableEnded) res.destroy();
        return;
      }
      if (err instanceof ApiFailure) return sendJson(res, STATUS[err.code], { error: { code: err.code, message: err.text } });
      // The stack and the error stay in the log (the logger redacts secrets); the page gets words.
      opts.logger.error({ err, path }, 'mini app API failed');
      sendJson(res, 500, { error: { code: 'internal', message: translator(lang.value)('miniapp_err_internal') } });
    });
  });
}

/** The planner's figure as the page shows it (the same share /filter's summary prints). */
function coverageOf(c: ServiceCoverage | undefined): Coverage {
  if (!c) return { share: null, intervalSeconds: null, fits: false };
  return { share: c.share, intervalSeconds: Math.round(c.intervalMs / 1000), fits: c.state === 'active' && c.share > 0 && c.draft !== true };
}

type UserBooks = Readonly<Record<string, { commission?: number; max?: number; min?: number; step?: number; status?: 'ok' | 'limited' | 'closed' }>>;

/** As /books lists them: with settings, exchanges, then the filters' bookmakers. */
function listedBookIds(user: { books: UserBooks; filters: Readonly<Record<string, { settings: { bookmakers: number[] } } | undefined>> } | undefined, names: Readonly<Record<string, string>>): string[] {
  const ids = new Set<string>();
  for (const id of Object.keys(user?.books ?? {})) if (names[id] !== undefined) ids.add(id);
  for (const [id, name] of Object.entries(names)) if (isKnownExchange(name)) ids.add(id);
  for (const f of Object.values(user?.filters ?? {})) for (const id of f?.settings.bookmakers ?? []) if (names[String(id)] !== undefined) ids.add(String(id));
  return [...ids];
}

function bookRows(books: UserBooks, names: Readonly<Record<string, string>>, ids: readonly string[]): BookRow[] {
  return ids.map((id) => {
    const name = names[id] ?? id;
    const d = defaultCommissionPct(name);
    return { id, name, settings: books[id] ?? {}, defaultCommission: d > 0 ? d : null, status: books[id]?.status ?? 'ok' };
  });
}
