/** Ports for tests that need one: a loopback port that nothing listens on once it is handed out. */
import { readFileSync } from 'node:fs';
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
 * Where the kernel hands out the local ports of outgoing connections (Linux's default when it
 * cannot be read): a port in this range that is free now may be a client socket's a moment later.
 */
function ephemeralRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && low > 1024 && high >= low) return { low, high };
  } catch {
    // Not Linux: take the default below.
  }
  return { low: 32_768, high: 60_999 };
}

/**
 * The first of `count` consecutive free ports, for processes given HTTP_PORT + i (`npm run cluster`,
 * the chaos test), and bound again later (a restarted worker takes its port back). They are taken
 * below the ephemeral range: a port handed out there was taken by some test's outgoing connection
 * between the check and the worker's listen (EADDRINUSE, a chaos run lost its worker).
 */
export async function freePorts(count: number): Promise<number> {
  const { low } = ephemeralRange();
  const floor = 20_000;
  const span = Math.max(low - floor - count, 1);
  for (let tries = 0; tries < 50; tries++) {
    const first = floor + Math.floor(Math.random() * span);
    let all = true;
    for (let i = 0; all && i < count; i++) all = (await tryPort(first + i)) !== undefined;
    if (all) return first;
  }
  throw new Error(`no ${count} consecutive free ports on 127.0.0.1`);
}
