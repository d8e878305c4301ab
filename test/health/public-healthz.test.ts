/**
 * /healthz on an interface other hosts reach (HTTP_HOST 0.0.0.0, as in the Docker image) says
 * only whether each check passes; the reasons and details (files, pids, host names) go only to a
 * request bearing HEALTH_TOKEN. On loopback, everything is shown as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from '../../src/health/server.js';

const servers: HealthServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const TOKEN = 'h'.repeat(8) + '0123456789abcdef';
const SECRET_PATH = '/srv/bot/data/db.json.corrupt-2026';

async function serve(host: string, detailsToken?: string): Promise<HealthServer> {
  const server = await startHealthServer({
    port: 0,
    host,
    checks: [{ name: 'store', check: () => false, reason: () => `remove ${SECRET_PATH}` }],
    metrics: { render: async () => 'bot_users 12345\n', contentType: 'text/plain' },
    details: () => ({ hostname: 'node-7.internal', pid: 4242 }),
    ...(detailsToken !== undefined && { detailsToken }),
  });
  servers.push(server);
  return server;
}

async function healthz(server: HealthServer, authorization?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${server.port}/healthz`, authorization ? { headers: { authorization } } : {});
  return { status: res.status, text: await res.text() };
}

describe('/healthz on a public interface', () => {
  it('shows only the checks to a stranger, and everything to a request with HEALTH_TOKEN', async () => {
    const server = await serve('0.0.0.0', TOKEN);
    const stranger = await healthz(server);
    expect(stranger.status).toBe(503);
    expect(JSON.parse(stranger.text)).toEqual({ ok: false, checks: { store: false } });
    for (const wrong of [`Bearer ${TOKEN.slice(0, -1)}x`, TOKEN, `Basic ${TOKEN}`, 'Bearer ']) {
      expect((await healthz(server, wrong)).text).not.toContain(SECRET_PATH);
    }
    const operator = await healthz(server, `Bearer ${TOKEN}`);
    expect(operator.text).toContain(SECRET_PATH);
    expect(operator.text).toContain('node-7.internal');
  });

  it('without HEALTH_TOKEN, never shows the reasons and details there', async () => {
    const server = await serve('0.0.0.0');
    for (const auth of [undefined, 'Bearer ', 'Bearer undefined']) {
      const { text } = await healthz(server, auth);
      expect(text).not.toContain(SECRET_PATH);
      expect(text).not.toContain('4242');
    }
  });

  it('on loopback, shows everything as before', async () => {
    const server = await serve('127.0.0.1');
    const { text } = await healthz(server);
    expect(text).toContain(SECRET_PATH);
    expect(text).toContain('node-7.internal');
  });
});

describe('/metrics on a public interface (audit 3, L7)', () => {
  const metrics = async (server: HealthServer, authorization?: string) => {
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`, authorization ? { headers: { authorization } } : {});
    return { status: res.status, text: await res.text() };
  };

  it('answers 401 without HEALTH_TOKEN, and the counts with it', async () => {
    const server = await serve('0.0.0.0', TOKEN);
    for (const wrong of [undefined, `Bearer ${TOKEN.slice(0, -1)}x`, TOKEN]) {
      const res = await metrics(server, wrong);
      expect(res.status).toBe(401);
      expect(res.text).not.toContain('bot_users');
      expect(res.text).toContain('HEALTH_TOKEN');
    }
    expect(await metrics(server, `Bearer ${TOKEN}`)).toEqual({ status: 200, text: 'bot_users 12345\n' });
  });

  it('is never served there when no HEALTH_TOKEN is set, and always on loopback', async () => {
    expect((await metrics(await serve('0.0.0.0'), 'Bearer undefined')).status).toBe(401);
    expect(await metrics(await serve('127.0.0.1'))).toEqual({ status: 200, text: 'bot_users 12345\n' });
  });
});
