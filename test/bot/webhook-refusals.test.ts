/**
 * Anyone can post to a public webhook URL: posts without the secret are refused, and logged at
 * most once a minute with how many were refused, so a flood of them cannot fill the logs.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookReceiver } from '../../src/bot/webhook.js';
import { ManualClock } from '../../src/clock.js';
import { listen } from '../../src/lib/listen.js';
import { captureLogs } from '../support/logs.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe('refused webhook posts in the logs', () => {
  it('one line a minute at most, saying how many were refused', async () => {
    const logs = captureLogs();
    const clock = new ManualClock(1_000_000);
    const receiver = createWebhookReceiver({ secret: 's'.repeat(32), handleUpdate: async () => undefined, logger: logs.logger, clock });
    server = createServer((req, res) => receiver.handle(req, res));
    const port = await listen(server, 0, '127.0.0.1');
    const post = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', headers: { 'x-telegram-bot-api-secret-token': 'wrong' }, body: '{"update_id":1}' });
      expect(res.status).toBe(401);
    };
    const refusalLines = () => logs.records().filter((r) => String(r.msg).includes('without the right secret token'));

    for (let i = 0; i < 50; i++) await post();
    expect(refusalLines()).toHaveLength(1);
    expect(refusalLines()[0]?.refused).toBe(1);

    await clock.advance(59_000);
    for (let i = 0; i < 20; i++) await post();
    expect(refusalLines()).toHaveLength(1);

    await clock.advance(1_000);
    await post();
    expect(refusalLines()).toHaveLength(2);
    // The 69 refused since the first line, and this one.
    expect(refusalLines()[1]?.refused).toBe(70);
    expect(receiver.stats().refused.secret).toBe(71);
  });
});
