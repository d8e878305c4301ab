/**
 * Reading a whole HTTP request body with a size limit, for the webhook and the Bot API stand-in:
 * past the limit the request is destroyed at once (nothing more is buffered) and the promise
 * rejects with BodyTooLargeError, so each server answers in its own words.
 */
import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the request body is larger than ${maxBytes} bytes`);
  }
}

/** The body of `req`, at most `maxBytes` long. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new BodyTooLargeError(maxBytes));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
