/**
 * The optional operator port (HTTP_PORT): `/healthz` says whether the bot is polling Telegram,
 * the store is writable and the scheduler ticking; `/metrics` serves Prometheus text.
 */
import { createServer, type Server } from 'node:http';
import { listen } from '../net/listen.js';
import { renderPrometheus, type MetricSample } from './metrics.js';

export interface HealthCheck {
  name: string;
  /** Resolves true when healthy; a thrown error counts as unhealthy. */
  check(): boolean | Promise<boolean>;
  /** Why it is unhealthy, for the operator (shown under `reasons` while the check fails). */
  reason?(): string | undefined | Promise<string | undefined>;
}

export interface HealthServerOptions {
  port: number;
  host?: string;
  checks: readonly HealthCheck[];
  metrics: () => readonly MetricSample[];
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      void runChecks(opts.checks).then(({ results, reasons }) => {
        const ok = Object.values(results).every(Boolean);
        res
          .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ ok, checks: results, ...(Object.keys(reasons).length > 0 ? { reasons } : {}) }));
      });
      return;
    }
    if (path === '/metrics') {
      let body: string;
      try {
        body = renderPrometheus(opts.metrics());
      } catch {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(body);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /healthz or /metrics\n');
  });
  const port = await listen(server, opts.port, opts.host ?? '0.0.0.0');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function runChecks(checks: readonly HealthCheck[]): Promise<{ results: Record<string, boolean>; reasons: Record<string, string> }> {
  const entries = await Promise.all(
    checks.map(async (c) => {
      let ok: boolean;
      try {
        ok = (await c.check()) === true;
      } catch {
        ok = false;
      }
      const reason = ok ? undefined : await Promise.resolve(c.reason?.()).catch(() => undefined);
      return [c.name, ok, reason] as const;
    }),
  );
  const reasons: Record<string, string> = {};
  for (const [name, , reason] of entries) if (reason !== undefined) reasons[name] = reason;
  return { results: Object.fromEntries(entries.map(([name, ok]) => [name, ok])), reasons };
}
