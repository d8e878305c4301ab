/**
 * Reads a Bot API request's parameters the way Telegram accepts them: a query string, a JSON
 * body, a form-urlencoded body or a multipart body (grammY uses multipart when it uploads a file;
 * `multipart.ts` reads it, files with their bytes).
 * Form fields that hold objects arrive as JSON text; the method schemas decode them.
 */
import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError, readBody } from '../lib/read-body.js';
import { parseMultipart } from './multipart.js';

const MAX_BODY_BYTES = 20 * 1024 * 1024;

/** Raised for a body the fake cannot read; the server answers 400 with `message`. */
export class BodyError extends Error {
  override name = 'BodyError';
}

/** Collects the parameters of `req` (query string first, then the body, which wins). */
export async function readPayload(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const payload: Record<string, unknown> = {};
  for (const [k, v] of url.searchParams) payload[k] = v;
  const raw = await readBody(req, MAX_BODY_BYTES).catch((err: unknown) => {
    throw err instanceof BodyTooLargeError ? new BodyError('Bad Request: request entity too large') : err;
  });
  if (raw.length === 0) return payload;

  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  if (contentType.startsWith('application/json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new BodyError('Bad Request: the request body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new BodyError('Bad Request: the JSON body must be an object');
    }
    return { ...payload, ...(parsed as Record<string, unknown>) };
  }
  if (contentType.startsWith('multipart/form-data')) {
    const fields = parseMultipart(raw, req.headers['content-type'] ?? '');
    if (!fields) throw new BodyError('Bad Request: the form body cannot be parsed');
    return { ...payload, ...fields };
  }
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    let form: FormData;
    try {
      form = await new Request('http://fake.invalid/', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: raw,
      }).formData();
    } catch {
      throw new BodyError('Bad Request: the form body cannot be parsed');
    }
    for (const [k, v] of form) {
      payload[k] = typeof v === 'string' ? v : { file: v.name, size: v.size };
    }
    return payload;
  }
  throw new BodyError('Bad Request: unsupported content type');
}
