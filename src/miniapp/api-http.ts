/**
 * The Mini App API's HTTP plumbing: JSON answers, the body read under MAX_BODY_BYTES (counted as it
 * arrives, not trusted from content-length), zod parsing into a worded 400, and the error codes'
 * statuses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import type { ZodType } from 'zod';
import type { translator } from '../locales/i18n.js';
import { MAX_BODY_BYTES, type ERROR_CODES } from './contract.js';

type Code = (typeof ERROR_CODES)[number];
export const STATUS: Record<Code, number> = {
  unauthorized: 401,
  expired: 401,
  bad_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  too_large: 413,
  too_many: 429,
  conflict: 409,
  internal: 500,
};

export class ApiFailure extends Error {
  constructor(
    readonly code: Code,
    readonly text: string,
  ) {
    super(code);
  }
}


/**
 * Answers at least this long go gzipped to a client that takes it: a ledger over all time with 200
 * open positions is about 164 KB of JSON and about a tenth of that gzipped, most of a second saved on
 * a phone's 3G. Compressed on the thread pool, not the event loop.
 */
const GZIP_FROM_BYTES = 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  sendText(res, status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...extra }, JSON.stringify(body));
}

/** `text` as the answer, gzipped past GZIP_FROM_BYTES for a client that takes it. */
export function sendText(res: ServerResponse, status: number, headers: Record<string, string>, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  const plain = { ...headers, vary: 'Accept-Encoding' };
  // `req` is missing on the boot call's captured answers: they are joined first, then sent here.
  const takesGzip = /\bgzip\b/.test(String(res.req?.headers['accept-encoding'] ?? ''));
  if (bytes.length < GZIP_FROM_BYTES || !takesGzip) return void res.writeHead(status, plain).end(bytes);
  gzip(bytes, { level: 6 }, (err, packed) => {
    if (res.destroyed) return;
    if (err) return void res.writeHead(status, plain).end(bytes);
    res.writeHead(status, { ...plain, 'content-encoding': 'gzip' }).end(packed);
  });
}

/** The body as JSON, refused past MAX_BODY_BYTES (counted as it arrives, not trusted from content-length). */
export function readJson(req: IncomingMessage, t: ReturnType<typeof translator>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    const tooLarge = () => new ApiFailure('too_large', t('miniapp_err_too_large', { max: MAX_BODY_BYTES }));
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      return reject(tooLarge());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return;
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'));
      } catch {
        reject(new ApiFailure('bad_request', t('miniapp_err_bad_request', { detail: 'not JSON' })));
      }
    });
    req.on('error', reject);
  });
}

export function parse<T>(schema: ZodType<T>, value: unknown, t: ReturnType<typeof translator>): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new ApiFailure('bad_request', t('miniapp_err_bad_request', { detail: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}` }));
}

