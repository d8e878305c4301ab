/**
 * The optional operator port (HTTP_PORT on HTTP_HOST): `/healthz` says whether updates reach the
 * bot, the store is writable and the scheduler ticking (in a cluster: what the process's role
 * checks, and its details); `/metrics` serves Prometheus text; in
 * webhook mode, POSTs to the webhook's path go to the webhook receiver.
 *
 * On an interface other hosts reach (HTTP_HOST other than loopback, as in the Docker image),
 * `/healthz` says only whether each check passes: its reasons and details name files, pids, host
 * names and queue state, which a stranger scanning the port has no business reading. They are
 * shown to a request with `Authorization: Bearer <HEALTH_TOKEN>` when HEALTH_TOKEN is set.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from '../config.js';
import { listen } from '../lib/listen.js';

export interface HealthCheck {
  name: string;
  /** Resolves true when healthy; a thrown error counts as unhealthy, and its message is the reason. */
  check(): boolean | Promise<boolean>;
  /** Why it is unhealthy, for the operator (shown under `reasons` while the check fails; a thrown error's message stands in). */
  reason?(): string | undefined | Promise<string | undefined>;
}

export interface HealthServerOptions {
  port: number;
  /** Default 127.0.0.1 (HTTP_HOST). */
  host?: string;
  checks: readonly HealthCheck[];
  metrics: { render(): Promise<string>; readonly contentType: string };
  /** Webhook mode: POSTs to `path` are Telegram's updates. */
  webhook?: { path: string; handle(req: IncomingMessage, res: ServerResponse): void };
  /** What this process is doing, shown under `details` (a cluster's role: its leases, its queue). */
  details?: () => Record<string, unknown>;
  /** Reasons and details only with this bearer token (default: when `host` is not loopback, none without it). */
  detailsToken?: string;
  /** Whether reasons and details need `detailsToken` (default: `host` is not loopback). */
  guarded?: boolean;
  /** The Mini App's routes (`/app/…`, src/miniapp/server.ts): true when it answered. */
  miniApp?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

export interface HealthServer {
  readonly port: number;
  /** The address it listens on (HTTP_HOST). */
  readonly address: string;
  close(): Promise<void>;
}

export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const guarded = opts.guarded ?? !isLoopbackHost(opts.host ?? '127.0.0.1');
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (opts.webhook && req.method === 'POST' && path === opts.webhook.path) {
      opts.webhook.handle(req, res);
      return;
    }
    if (opts.miniApp?.(req, res)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      req.resume();
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      const full = !guarded || tokenMatches(req.headers.authorization, opts.detailsToken);
      void runChecks(opts.checks).then(({ results, reasons }) => {
        const ok = Object.values(results).every(Boolean);
        if (!full) {
          res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ok, checks: results }));
          return;
        }
        let details: Record<string, unknown> | undefined;
        try {
          details = opts.details?.();
        } catch {
          details = { error: 'details unavailable' };
        }
        res
          .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ ok, checks: results, ...(Object.keys(reasons).length > 0 ? { reasons } : {}), ...(details && { details }) }));
      });
      return;
    }
    if (path === '/metrics') {
      // User counts and alert and read rates are nobody else's business: off loopback they need
      // the token, as /healthz's details do (audit 3, L7).
      if (guarded && !tokenMatches(req.headers.authorization, opts.detailsToken)) {
        res
          .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
          .end('metrics need "Authorization: Bearer <HEALTH_TOKEN>" on a public address (or HTTP_HOST=127.0.0.1)\n');
        return;
      }
      opts.metrics.render().then(
        (body) => res.writeHead(200, { 'content-type': opts.metrics.contentType }).end(body),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /healthz or /metrics\n');
  });
  const address = opts.host ?? '127.0.0.1';
  const port = await listen(server, opts.port, address);
  return {
    port,
    address: (server.address() as AddressInfo).address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Whether `Authorization` is `Bearer <token>` (compared in constant time); false without a token. */
function tokenMatches(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined || header === undefined) return false;
  const given = Buffer.from(header.replace(/^Bearer\s+/i, ''));
  const expected = Buffer.from(token);
  return /^Bearer\s/i.test(header) && given.length === expected.length && timingSafeEqual(given, expected);
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function runChecks(checks: readonly HealthCheck[]): Promise<{ results: Record<string, boolean>; reasons: Record<string, string> }> {
  const entries = await Promise.all(
    checks.map(async (c) => {
      let ok: boolean;
      let thrown: string | undefined;
      try {
        ok = (await c.check()) === true;
      } catch (err) {
        ok = false;
        thrown = `the check failed: ${messageOf(err)}`;
      }
      if (ok) return [c.name, ok, undefined] as const;
      // A red check with no word of why is what an operator can least act on: say what went wrong.
      let reason: string | undefined;
      try {
        reason = await c.reason?.();
      } catch (err) {
        reason = `its reason could not be told: ${messageOf(err)}`;
      }
      return [c.name, ok, reason ?? thrown] as const;
    }),
  );
  const reasons: Record<string, string> = {};
  for (const [name, , reason] of entries) if (reason !== undefined) reasons[name] = reason;
  return { results: Object.fromEntries(entries.map(([name, ok]) => [name, ok])), reasons };
}
