/**
 * The Mini App API's HTTP plumbing: JSON answers, the body read under MAX_BODY_BYTES (counted as it
 * arrives, not trusted from content-length), zod parsing into a worded 400, and the error codes'
 * statuses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
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


export function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...extra }).end(JSON.stringify(body));
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

