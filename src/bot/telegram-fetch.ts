/**
 * grammY's `fetch` for the Bot API on undici's dispatcher instead of its default, node-fetch over
 * `node:http`. Each alert is one Bot API call, and measured under the scale benchmark's load a call
 * through node-fetch (a WHATWG Request and Headers, an abort-controller shim, an `http.ClientRequest`,
 * a response stream) cost about five reads of the Data Service through undici: the largest part
 * of the bot's CPU beyond the reads themselves. Here a call is one `dispatch` with a handler that
 * gathers the answer's bytes, the way the service client reads (src/service/http.ts).
 *
 * grammY uses no more of the answer than `json()`, and sets every limit itself: its own timeout
 * aborts the call through the signal, so undici's timers are off. Bodies come as a string (JSON) or
 * as a stream (a multipart upload: a chart, an export) and go out as they are. A failure rejects
 * with undici's or the system's error (its `code` intact: src/operator/causes.ts reads it), which
 * grammY wraps in its `HttpError` as it did node-fetch's.
 */
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import type { ApiClientOptions } from 'grammy';

type GrammyFetch = NonNullable<ApiClientOptions['fetch']>;

/** What grammY passes: its JSON or multipart payload, and its own signal (an abort-controller shim's, or Node's). */
interface CallInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Readable;
  signal?: { aborted: boolean; addEventListener(type: 'abort', listener: () => void): void; removeEventListener(type: 'abort', listener: () => void): void } | null;
}

/** The part of a fetch `Response` grammY reads. */
interface CallAnswer {
  readonly ok: boolean;
  readonly status: number;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** A call cancelled by grammY (its timeout, or the caller's signal). */
class TelegramCallAborted extends Error {
  override name = 'AbortError';
  readonly code = 'ABORT_ERR';
  constructor() {
    super('the Bot API call was aborted');
  }
}

/** Keep-alive connections to the Bot API; undici leaves idle ones unreferenced, so they hold no process open. */
export function createTelegramAgent(): Agent {
  return new Agent({ keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 });
}

let shared: GrammyFetch | undefined;

/** The process's `client.fetch`: one agent for every Bot API client, as grammY keeps one `http.Agent` per API root. */
export function telegramFetch(): GrammyFetch {
  return (shared ??= createTelegramFetch(createTelegramAgent()));
}

/** grammY's `client.fetch` over `dispatcher`. */
export function createTelegramFetch(dispatcher: Dispatcher): GrammyFetch {
  /** Where a URL's calls go: a bot calls a handful of methods, each under one URL. */
  const targets = new Map<string, { origin: string; path: string }>();
  const target = (href: string) => {
    let known = targets.get(href);
    if (!known) {
      const url = new URL(href);
      known = { origin: url.origin, path: `${url.pathname}${url.search}` };
      // Methods are few; a map that somehow grew is simply started over.
      if (targets.size >= 1_000) targets.clear();
      targets.set(href, known);
    }
    return known;
  };

  const call = (href: string, init: CallInit = {}): Promise<CallAnswer> =>
    new Promise<CallAnswer>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(new TelegramCallAborted());
      const { origin, path } = target(href);
      let controller: { abort(reason: Error): void } | undefined;
      let done = false;
      const finish = (err: Error | undefined, answer?: CallAnswer) => {
        if (done) return;
        done = true;
        signal?.removeEventListener('abort', onAbort);
        if (answer) resolve(answer);
        else reject(err);
      };
      const onAbort = () => {
        const aborted = new TelegramCallAborted();
        controller?.abort(aborted);
        finish(aborted);
      };
      signal?.addEventListener('abort', onAbort);
      let status = 0;
      const chunks: Buffer[] = [];
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(ctl) {
          controller = ctl;
          if (done) ctl.abort(new TelegramCallAborted());
        },
        onResponseStart(_ctl, statusCode) {
          status = statusCode;
        },
        onResponseData(_ctl, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          // 1xx answers are interim: undici hands over only the final one's body.
          const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          finish(undefined, answerOf(status, bytes));
        },
        onResponseError(_ctl, err) {
          finish(err);
        },
      };
      dispatcher.dispatch({ origin, path, method: (init.method ?? 'GET') as Dispatcher.HttpMethod, headers: init.headers ?? {}, body: init.body ?? null }, handler);
    });
  // grammY types its option as the platform's fetch; it reads `json()` of what comes back, nothing else.
  return call as unknown as GrammyFetch;
}

function answerOf(status: number, bytes: Buffer): CallAnswer {
  const text = () => bytes.toString('utf8');
  return {
    ok: status >= 200 && status < 300,
    status,
    text: () => Promise.resolve(text()),
    json: () => {
      try {
        return Promise.resolve(JSON.parse(text()) as unknown);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
}
