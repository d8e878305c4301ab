/** Ports for tests that need one: a loopback port that nothing listens on once it is handed out. */
import { createServer } from 'node:http';
import { listen } from '../../src/lib/listen.js';

/** Binds `port` on 127.0.0.1 (0: any) and lets it go again; resolves with it, or undefined when it is taken. */
async function tryPort(port: number): Promise<number | undefined> {
  const server = createServer();
  const bound = await listen(server, port, '127.0.0.1').catch(() => undefined);
  if (bound !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

/** A TCP port on 127.0.0.1 nothing listens on (bound to learn it, then released). */
export async function freePort(): Promise<number> {
  const port = await tryPort(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  return port;
}

/**
 * The first of `count` consecutive free ports, for processes given HTTP_PORT + i (`npm run cluster`,
 * the chaos test). Each is checked: the port next to a free one may be a client socket's (Linux tends
 * to give connections even ports and `bind(0)` odd ones), and a worker given such a port failed to start.
 */
export async function freePorts(count: number): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const first = await freePort();
    let all = first + count - 1 <= 65_535;
    for (let i = 1; all && i < count; i++) all = (await tryPort(first + i)) !== undefined;
    if (all) return first;
  }
  throw new Error(`no ${count} consecutive free ports on 127.0.0.1`);
}
