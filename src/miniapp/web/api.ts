/** The only place in the page that knows the API's URLs; every call carries `Authorization: tma <initData>`. */
import type {
  BookRow, BooksView, Coverage, FiltersView, LedgerQuery, LedgerView, Me, OpenPosition, SaveFilterAnswer, ServiceFilter, SettleAnswer,
} from './types.js';

/** An answer that is not 2xx: the server's words when it sent some, else the status. */
export class ApiFailure extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

const BASE = 'api/';

function query(q: object): string {
  const pairs = Object.entries(q).filter(([, v]) => v !== undefined && v !== '');
  return pairs.length === 0 ? '' : '?' + new URLSearchParams(pairs as [string, string][]).toString();
}

export function createApi(initData: string, fetcher: typeof fetch = fetch.bind(globalThis)) {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetcher(BASE + path, {
        method,
        headers: { authorization: `tma ${initData}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch {
      throw new ApiFailure(0, 'network', '');
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const err = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ApiFailure(res.status, err?.code ?? String(res.status), err?.message ?? '');
    }
    return json as T;
  }
  return {
    me: () => call<Me>('GET', 'me'),
    ledger: (q: LedgerQuery) => call<LedgerView>('GET', 'ledger' + query(q)),
    settle: (id: string, result: string) => call<SettleAnswer>('POST', `positions/${encodeURIComponent(id)}/settle`, { result }),
    undo: (id: string) => call<OpenPosition>('POST', `positions/${encodeURIComponent(id)}/undo`, {}),
    edit: (id: string, change: { leg: number; odds?: number; stake?: number; bookmaker?: string }) =>
      call<OpenPosition>('POST', `positions/${encodeURIComponent(id)}/edit`, change),
    /** The CSV as a blob: a plain link could not carry the Authorization header. */
    async csv(q: LedgerQuery): Promise<Blob> {
      const res = await fetcher(BASE + 'ledger.csv' + query(q), { headers: { authorization: `tma ${initData}` } });
      if (!res.ok) throw new ApiFailure(res.status, String(res.status), '');
      return res.blob();
    },
    filters: () => call<FiltersView>('GET', 'filters'),
    coverage: (service: string, filter: ServiceFilter) => call<Coverage>('POST', 'filters/coverage', { service, filter }),
    saveFilter: (service: string, filter: ServiceFilter) => call<SaveFilterAnswer>('PUT', `filters/${encodeURIComponent(service)}`, filter),
    books: () => call<BooksView>('GET', 'books'),
    saveBook: (row: BookRow) => call<BookRow>('PUT', `books/${encodeURIComponent(row.bookmaker)}`, row),
  };
}

export type Api = ReturnType<typeof createApi>;
