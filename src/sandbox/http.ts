/** Small HTTP helpers of the sandbox: bodies in, JSON answers out. */
import type { IncomingMessage } from 'node:http';

/** Largest request body read; anything longer is answered 413. */
export const MAX_BODY_BYTES = 1 << 20;

/** What a route decided: an answer, or (a timeout fault) no answer at all. */
export type Outcome = { status: number; body: unknown; headers?: Record<string, string> } | { hold: true };

/** A JSON error answer `{"error": "...", "status": N}`. */
export function errorOutcome(status: number, message: string, headers?: Record<string, string>, extra?: Record<string, unknown>): Outcome {
  return { status, body: { error: message, status, ...extra }, ...(headers ? { headers } : {}) };
}

export function ok(body: unknown): Outcome {
  return { status: 200, body };
}

/** Reads the whole body as text; undefined when it is longer than MAX_BODY_BYTES. */
export function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLong = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLong = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLong ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The request's remote address, without the IPv4-mapped IPv6 prefix. */
export function remoteAddress(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? 'unknown';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

/** Parses a JSON body; undefined when it is not JSON. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

export function isJsonContentType(header: string | undefined): boolean {
  return header !== undefined && /^application\/json\s*(;|$)/i.test(header.trim());
}
