/**
 * One HTTP exchange with the Data Service over undici: a timeout on every request, the status
 * mapped onto the `ServiceError` taxonomy, `Retry-After` read, JSON parsed. Error messages name
 * the operation and what went wrong in words; they never carry a URL, a header or a body, since
 * those can hold the access key's secret or a token.
 */
import { Agent, errors, getGlobalDispatcher, type Dispatcher } from 'undici';
import { whenAborted } from './abort.js';
import { ServiceError, type ServiceErrorKind } from './errors.js';

/**
 * Connections kept open to one host. The scheduler may have a few hundred reads in flight after a
 * pause; past this many they wait in undici's queue for a free connection instead of each opening
 * its own (a socket and, on the real service, a TLS session per read of the burst, all idle again
 * a moment later). 64 carry about 600 reads a second per host at 100 ms a read.
 */
export const CONNECTIONS_PER_HOST = 64;

/**
 * The client's dispatcher: keep-alive connections, at most `CONNECTIONS_PER_HOST` to each host,
 * leaving from `localAddress` when given (BB_LOCAL_ADDRESS: a service that counts limits per
 * client address then counts this process's requests under that address).
 */
export function createServiceAgent(opts: { localAddress?: string | undefined } = {}): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    connections: CONNECTIONS_PER_HOST,
    // undici's Client option (its `connect.localAddress` is overridden by this one, null or not).
    ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
  });
}

/** The methods the Data Service uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT';

/** One request as `sendRequest` takes it. */
export interface HttpRequest {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** What this request does, in words, for error messages ("arbs_live items read"). */
  what: string;
  /** How long to wait for the answer to begin, and at most between two parts of it. */
  timeoutMs: number;
  /** Time base for `Retry-After` given as an HTTP date. */
  now: () => number;
  dispatcher?: Dispatcher;
  /** The caller's cancellation: its reason is rethrown as is, never mapped to a service error. */
  signal?: AbortSignal;
  /** The longest answer read (default `MAX_RESPONSE_BYTES`); past it the exchange is aborted. */
  maxBytes?: number;
}

/**
 * The longest answer read from the service: a broken or hostile host streaming without end would
 * otherwise fill the memory of every process reading it. A full page of items is far below this.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** An answer past `maxBytes`: the exchange was aborted there. */
class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`);
  }
}

/** A 2xx answer. */
export interface HttpResponse {
  status: number;
  /** The parsed JSON body; for a body that is not JSON, the raw text (see `bodyIsJson`). */
  body: unknown;
  bodyIsJson: boolean;
}

/** A 2xx answer with its body as it came, for a caller that may not need to parse it again. */
export interface HttpTextResponse {
  status: number;
  /** The body as text (decoded on first use when the answer came as bytes). */
  readonly text: string;
  /** The body's bytes, when it came over the wire (a memo may recognise them without decoding). */
  readonly bytes?: Buffer;
  /** The answer's `Date` header as sent (the service's clock: service-clock.ts measures the skew from it). */
  readonly date?: string | undefined;
}

/** An answer's body as it came; decoded into text only if someone asks for it. */
class WireAnswer implements HttpTextResponse {
  private decoded: string | undefined;
  constructor(
    readonly status: number,
    readonly bytes: Buffer,
    readonly date: string | undefined,
  ) {}

  get text(): string {
    return (this.decoded ??= decodeUtf8(this.bytes));
  }
}

/**
 * Sends one request. Resolves only on 2xx (with the body parsed); every other outcome throws a
 * `ServiceError` (or the caller's abort reason).
 */
export async function sendRequest(req: HttpRequest): Promise<HttpResponse> {
  return parseJsonBody(await sendRequestText(req));
}

/** `sendRequest` without parsing the body: the 2xx answer's text (see `parseJsonBody`). */
export async function sendRequestText(req: HttpRequest): Promise<HttpTextResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  let payload: string | undefined;
  if (req.json !== undefined) {
    payload = JSON.stringify(req.json);
    headers['content-type'] = 'application/json';
  }
  try {
    const { status, bytes, retryAfter, date } = await exchange(req, headers, payload);
    if (status < 200 || status >= 300) {
      throw errorForStatus(status, req.what, parseRetryAfter(retryAfter, req.now()));
    }
    return new WireAnswer(status, bytes, date);
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    if (req.signal?.aborted) throw req.signal.reason;
    if (err instanceof ResponseTooLargeError) {
      throw new ServiceError('malformed', `${req.what}: the answer was larger than ${Math.round(err.maxBytes / 1024 / 1024)} MB; not read further`);
    }
    if (isTimeout(err)) throw new ServiceError('timeout', `${req.what}: no answer within ${req.timeoutMs} ms`);
    throw new ServiceError('timeout', `${req.what}: the connection failed (${networkCause(err)})`);
  }
}

/** What `exchange` hands back: the final status, the body's bytes, and `Retry-After` if sent. */
interface RawAnswer {
  status: number;
  bytes: Buffer;
  retryAfter: string | undefined;
  date: string | undefined;
}

/**
 * One exchange through undici's dispatcher, with a handler of our own: the body is gathered as
 * it arrives, kept as bytes, and decoded only when read as text (a byte-order mark dropped, as
 * undici's `body.text()` does). The
 * `request()` helper would add an async resource, a readable stream and its events per request,
 * which were a good share of the bot's CPU time per read. undici's own timers bound the wait for
 * the answer and each pause inside it; the caller's signal aborts the exchange. Rejects with what
 * undici or the signal gave; `sendRequest` words it.
 */
function exchange(req: HttpRequest, headers: Record<string, string>, body: string | undefined): Promise<RawAnswer> {
  const url = target(req.url);
  const dispatcher = req.dispatcher ?? getGlobalDispatcher();
  const { signal } = req;
  const maxBytes = req.maxBytes ?? MAX_RESPONSE_BYTES;
  return new Promise<RawAnswer>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let controller: { abort(reason: Error): void } | undefined;
    let done = false;
    const finish = (err: unknown, answer?: RawAnswer) => {
      if (done) return;
      done = true;
      unwatch?.();
      if (answer) resolve(answer);
      else reject(err);
    };
    const unwatch = signal
      ? whenAborted(signal, () => {
        controller?.abort(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        finish(signal.reason);
      })
      : undefined;
    let status = 0;
    let retryAfter: string | undefined;
    let date: string | undefined;
    const chunks: Buffer[] = [];
    let length = 0;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(ctl) {
        controller = ctl;
        // Aborted while it waited for a connection: nothing more to send or read.
        if (done) ctl.abort(new Error('aborted'));
      },
      onResponseStart(_ctl, statusCode, responseHeaders) {
        // 1xx answers are interim; the final one follows.
        if (statusCode < 200) return;
        status = statusCode;
        retryAfter = headerValue(responseHeaders['retry-after']);
        date = headerValue(responseHeaders.date);
      },
      onResponseData(ctl, chunk) {
        length += chunk.length;
        if (length > maxBytes) {
          // Stop reading at once: nothing past the cap is buffered.
          const tooLarge = new ResponseTooLargeError(maxBytes);
          ctl.abort(tooLarge);
          finish(tooLarge);
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        finish(undefined, { status, bytes: joinChunks(chunks, length), retryAfter, date });
      },
      onResponseError(_ctl, err) {
        finish(err);
      },
    };
    dispatcher.dispatch(
      {
        origin: url.origin,
        path: url.path,
        method: req.method,
        headers,
        body: body ?? null,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      },
      handler,
    );
  });
}

/** Where a URL's requests go, by URL: each subscription asks the same few URLs again and again. */
const targets = new Map<string, { origin: string; path: string }>();
/** URLs remembered at most; past it the map starts over (lookups by id add URLs of their own). */
const MAX_TARGETS = 10_000;

function target(url: string): { origin: string; path: string } {
  let known = targets.get(url);
  if (!known) {
    const parsed = new URL(url);
    known = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(url, known);
  }
  return known;
}

/** The body's parts as one buffer (the one part itself when it came in one). */
function joinChunks(chunks: readonly Buffer[], length: number): Buffer {
  if (length === 0) return Buffer.alloc(0);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
}

/** The body's bytes as text: UTF-8, a leading byte-order mark dropped. */
function decodeUtf8(buffer: Buffer): string {
  const start = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  return buffer.toString('utf8', start);
}

/** undici gave up waiting: for the answer to start, or for the rest of it. */
function isTimeout(err: unknown): boolean {
  return err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError;
}

/** The answer's body parsed as JSON, or kept as text when it is not JSON. */
export function parseJsonBody({ status, text }: HttpTextResponse): HttpResponse {
  if (text.trim() === '') return { status, body: undefined, bodyIsJson: false };
  try {
    return { status, body: JSON.parse(text) as unknown, bodyIsJson: true };
  } catch {
    return { status, body: text, bodyIsJson: false };
  }
}

/** The body as JSON, or `ServiceError('malformed')` when it is not JSON. */
export function requireJson(res: HttpResponse, what: string): unknown {
  if (!res.bodyIsJson) throw new ServiceError('malformed', `${what}: the answer was not JSON`, { status: res.status });
  return res.body;
}

/** Maps a non-2xx status onto the taxonomy. */
export function errorForStatus(status: number, what: string, retryAfterMs?: number): ServiceError {
  const kind = kindForStatus(status);
  const details = retryAfterMs === undefined ? { status } : { status, retryAfterMs };
  return new ServiceError(kind, `${what}: ${DESCRIPTIONS[kind]} (HTTP ${status})`, details);
}

/** The error kind of an HTTP status (401 auth, 403 forbidden, 429 rate_limited, 404/405/410 not_found, 408/504 timeout, 5xx server, other 4xx malformed). */
export function kindForStatus(status: number): ServiceErrorKind {
  if (status === 401) return 'auth';
  if (status === 403) return 'forbidden';
  if (status === 429) return 'rate_limited';
  if (status === 404 || status === 405 || status === 410) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status >= 500) return 'server';
  // Any other 4xx: the service could not use what we sent; retrying the same request cannot help.
  return 'malformed';
}

const DESCRIPTIONS: Record<ServiceErrorKind, string> = {
  auth: 'the service refused the credentials',
  forbidden: 'the service denied access to this data',
  rate_limited: 'the service said the rate limit was reached',
  not_found: 'the service does not offer this (unknown id or unsupported path)',
  server: 'the service had an internal problem',
  timeout: 'the service did not answer in time',
  malformed: 'the service could not use the request',
};

/**
 * `Retry-After` as ms from `now`: delta seconds (decimals tolerated) or an HTTP date.
 * Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // HTTP dates always name a weekday or month in letters; this keeps "12abc" from parsing.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A short, secret-free name for a network failure (ECONNREFUSED, socket closed …): its code or class, never its message. */
export function networkCause(err: unknown): string {
  if (err && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string' && /^\w+$/.test(name)) return name;
  }
  return 'network error';
}
