/** The only place in the page that knows the API's URLs; every call carries `Authorization: tma <initData>`. */
import type { BootAnswer } from '../boot-contract.js';
import { bootPath, type Screen } from './early-boot.js';
import type { BookRow, BookSaved, BooksView, Coverage, CsvSent, EditBody, Filter, FilterSaved, FiltersView, LedgerQuery, LedgerView, PositionAnswer, SettleBody } from './types.js';

/** An answer that is not 2xx: the server's words when it sent some, else the status. */
export class ApiFailure extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

const BASE = 'api/';

function query(q: LedgerQuery): string {
  const pairs = Object.entries(q).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '');
  return pairs.length === 0 ? '' : '?' + new URLSearchParams(pairs).toString();
}

export function createApi(initData: string, fetcher: typeof fetch = fetch.bind(globalThis)) {
  const auth = { authorization: `tma ${initData}` };
  const send = (method: string, path: string, body?: unknown): Promise<Response> =>
    checked(
      fetcher(BASE + path, {
        method,
        headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
  /** A 2xx answer, else an ApiFailure in the server's words (status 0: the network failed). */
  async function checked(pending: Promise<Response>): Promise<Response> {
    let res: Response;
    try {
      res = await pending;
    } catch {
      throw new ApiFailure(0, 'network', '');
    }
    if (!res.ok) {
      let err: { code?: string; message?: string } | undefined;
      try {
        err = ((await res.json()) as { error?: { code?: string; message?: string } }).error;
      } catch {
        err = undefined;
      }
      throw new ApiFailure(res.status, err?.code ?? String(res.status), err?.message ?? '');
    }
    return res;
  }
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => (await (await send(method, path, body)).json()) as T;
  const pos = (id: string) => `positions/${encodeURIComponent(id)}/`;
  // The boot answer's filters or books, handed to the first call for them (later ones ask anew). The
  // ledger is not primed here: main.ts gives the ledger screen its first view, and a later reload must not get it.
  let primed: Partial<Record<'filters' | 'books', Promise<BootAnswer>>> = {};
  const first = <K extends 'filters' | 'books'>(screen: K, fresh: () => Promise<NonNullable<BootAnswer[K]>>): Promise<NonNullable<BootAnswer[K]>> => {
    const answer = primed[screen];
    delete primed[screen];
    return answer ? answer.then((a) => a[screen] ?? fresh()) : fresh();
  };
  return {
    /** `me` and `screen`'s data in one call; `early` is the same call when the page's <head> started it. */
    boot(screen: Screen, early?: Promise<Response>): Promise<BootAnswer> {
      const answer = checked(early ?? fetcher(bootPath(screen), { headers: auth })).then((r) => r.json() as Promise<BootAnswer>);
      primed = screen === 'ledger' ? {} : { [screen]: answer };
      return answer;
    },
    ledger: (q: LedgerQuery) => call<LedgerView>('GET', 'ledger' + query(q)),
    settle: (id: string, body: SettleBody) => call<PositionAnswer>('POST', pos(id) + 'settle', body),
    undo: (id: string, n: number) => call<PositionAnswer>('POST', pos(id) + 'undo', { n }),
    edit: (id: string, body: EditBody) => call<PositionAnswer>('POST', pos(id) + 'edit', body),
    /** The CSV as a blob: a plain link could not carry the Authorization header. */
    csv: async (q: LedgerQuery): Promise<Blob> => (await send('GET', 'ledger.csv' + query(q))).blob(),
    /** The same file sent by the bot to the user's chat with it (phones' webviews drop a download). */
    sendCsv: (q: LedgerQuery) => call<CsvSent>('POST', 'ledger.csv/send' + query(q)),
    filters: () => first('filters', () => call<FiltersView>('GET', 'filters')),
    coverage: (service: string, filter: Filter) => call<Coverage>('POST', 'filters/coverage', { service, filter }),
    saveFilter: (service: string, filter: Filter) => call<FilterSaved>('PUT', `filters/${encodeURIComponent(service)}`, { filter }),
    books: () => first('books', () => call<BooksView>('GET', 'books')),
    saveBook: (id: string, settings: BookRow['settings']) => call<BookSaved>('PUT', `books/${encodeURIComponent(id)}`, { settings }),
  };
}

export type Api = ReturnType<typeof createApi>;
