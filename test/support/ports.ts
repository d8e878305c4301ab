/** Ports for tests that need one: a loopback port that nothing listens on once it is handed out. */
import { createServer } from 'node:http';
import { listen } from '../../src/lib/listen.js';

/** A TCP port on 127.0.0.1 nothing listens on (bound to learn it, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server, 0, '127.0.0.1');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
