/** The one body reader of the webhook and the Bot API stand-in: whole bodies under the limit, a refusal past it. */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../../src/lib/listen.js';
import { BodyTooLargeError, readBody } from '../../src/lib/read-body.js';

let server: Server | undefined;
afterEach(() => server?.close());

async function post(maxBytes: number, body: string): Promise<string> {
  const seen: string[] = [];
  server = createServer((req, res) => {
    readBody(req, maxBytes).then(
      (buf) => {
        seen.push(`ok:${buf.toString('utf8')}`);
        res.end();
      },
      (err: unknown) => {
        seen.push(err instanceof BodyTooLargeError ? `too large:${err.maxBytes}` : 'other');
        res.destroy();
      },
    );
  });
  const port = await listen(server, 0, '127.0.0.1');
  await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body }).catch(() => undefined);
  return seen[0] ?? 'nothing';
}

describe('readBody', () => {
  it('gives the whole body when it fits, to the byte', async () => {
    expect(await post(10, 'héllo')).toBe('ok:héllo');
  });

  it('refuses a body one byte past the limit', async () => {
    expect(await post(5, 'abcdef')).toBe('too large:5');
  });
});
