/**
 * Every fault kind against the sandbox over real HTTP: 401 and 403 pause the subscription and
 * tell the user through the outbox; a 429 makes that scope wait for Retry-After; 5xx, timeouts
 * and broken bodies back off and recover; a user who blocked the bot is no longer polled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addUser } from './harness.js';
import { flushAlerts, runStack, startStack, type Stack } from './stack.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const key = (n: number) => ({ accessKey: `fault-key-${n}`, secret: `fault-secret-${n}` });
const reads = (s: Stack, n: number, host = '/arbs-prematch') => s.sandbox.counters().byKeyHost[`fault-key-${n}|${host}|items`] ?? 0;
const WORLD = { itemsPerService: 2, eventsPerService: 4 };

describe('faults against the sandbox', () => {
  it('401: pauses the subscription and tells the user; 403: pauses that service and says what to do; others go on', async () => {
    stack = await startStack({ sandbox: { keys: [key(1), key(2), key(3)], world: WORLD } });
    const { store, sandbox, telegram } = stack;
    // User 1's stored secret is not the pair's secret: the token request answers 401.
    addUser(store, 1, ['arbs_prematch'], { accessKey: 'fault-key-1', secret: 'not-the-secret' });
    addUser(store, 2, ['arbs_prematch', 'arbs_live'], { ...key(2), lang: 'ru' });
    addUser(store, 3, ['arbs_prematch'], key(3));
    stack.scheduler.start();
    await runStack(stack, 30_000);
    sandbox.setFaults({ revokedKeys: ['fault-key-2'] });
    await runStack(stack, 6 * 60_000);
    await flushAlerts(stack);

    expect(store.getUser(1)?.filters.arbs_prematch).toMatchObject({ paused: true, pausedReason: 'auth' });
    expect(store.getUser(1)?.status.arbs_prematch?.lastError?.kind).toBe('auth');
    const one = telegram!.messages(1).map((m) => m.text);
    expect(one).toHaveLength(1);
    expect(one[0]).toContain('/connect');
    expect(sandbox.counters().byKeyHost['fault-key-1|/arbs-prematch|items'] ?? 0).toBe(0);

    // Revoked: both services stop (the token request is refused), each paused as forbidden, the user told in Russian.
    for (const s of ['arbs_prematch', 'arbs_live'] as const) {
      expect(store.getUser(2)?.filters[s]).toMatchObject({ paused: true, pausedReason: 'forbidden' });
    }
    const notices = telegram!.messages(2).filter((m) => m.text.includes('/resume'));
    expect(notices.map((m) => m.text.match(/\/resume (\w+)/)?.[1]).sort()).toEqual(['arbs_live', 'arbs_prematch']);
    expect(notices.every((m) => m.text.includes('приостановлены'))).toBe(true);
    const pausedAt = reads(stack, 2);
    await runStack(stack, 60_000);
    expect(reads(stack, 2)).toBe(pausedAt);

    // User 3 never noticed: steady reads every ~5 s for 7.5 minutes.
    expect(reads(stack, 3)).toBeGreaterThan(70);
    expect(store.getUser(3)?.filters.arbs_prematch?.paused).toBe(false);
    expect(sandbox.counters().breaches).toBe(0);
    expect(stack.scheduler.stats().subscriptions).toBe(1);
  });

  it('429: waits out Retry-After for that scope, then reads again', async () => {
    // The service allows 6 reads a minute while the bot believes 30: it will answer 429.
    stack = await startStack({ sandbox: { keys: [key(1), key(2)], world: WORLD, limits: { itemsPerMinute: 6 } } });
    addUser(stack.store, 1, ['arbs_prematch'], key(1));
    addUser(stack.store, 2, ['arbs_live'], key(2));
    stack.scheduler.start();
    await runStack(stack, 10 * 60_000);
    const { status, breachLog } = stack.sandbox.counters();
    const ok = reads(stack, 1);
    // Without honouring Retry-After it would be ~110 reads and as many 429s; with it, ≤ 6 good reads a minute and
    // about one 429 per minute per key.
    expect(ok).toBeGreaterThanOrEqual(50);
    expect(ok).toBeLessThanOrEqual(61);
    const perScope = (scope: string) => breachLog.filter((b) => b.scope.includes(scope)).map((b) => b.at);
    for (const scope of ['fault-key-1', 'fault-key-2']) {
      const at = perScope(scope);
      expect(at.length).toBeGreaterThan(0);
      expect(at.length).toBeLessThanOrEqual(12);
      // Never two refusals of one scope within its minute: the scheduler waited as told.
      for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(30_000);
    }
    expect(status['429']).toBe(breachLog.length);
    expect(stack.store.getUser(1)?.status.arbs_prematch?.lastError?.kind).toBe('rate_limited');
    expect(stack.store.getUser(1)?.filters.arbs_prematch?.paused).toBe(false);
  });

  it('5xx, timeouts and broken bodies: backs off, recovers, stays within every limit', async () => {
    stack = await startStack({ sandbox: { keys: [1, 2, 3, 4].map(key), world: WORLD } });
    for (let n = 1; n <= 4; n++) addUser(stack.store, n, ['arbs_prematch'], key(n));
    stack.scheduler.start();
    await runStack(stack, 60_000);
    stack.sandbox.setFaults({ errorRate: 0.3, malformedRate: 0.2, timeoutRate: 0.05 });
    await runStack(stack, 3 * 60_000);
    const during = stack.scheduler.stats();
    expect(during.errors).toBeGreaterThan(5);
    const kinds = new Set([1, 2, 3, 4].map((n) => stack!.store.getUser(n)?.status.arbs_prematch?.lastError?.kind));
    for (const kind of kinds) expect(['server', 'malformed', 'timeout', undefined]).toContain(kind);
    expect([...kinds].filter(Boolean).length).toBeGreaterThan(0);

    stack.sandbox.setFaults({});
    await runStack(stack, 5 * 60_000);
    const before = [1, 2, 3, 4].map((n) => reads(stack!, n));
    await runStack(stack, 2 * 60_000);
    // Recovered: back to a read every 5–5.5 s (up to 20 s lost to a token renewal).
    for (let n = 1; n <= 4; n++) expect(reads(stack, n) - before[n - 1]!).toBeGreaterThanOrEqual(17);
    expect(stack.sandbox.counters().breaches).toBe(0);
    for (let n = 1; n <= 4; n++) expect(stack.store.getUser(n)?.filters.arbs_prematch?.paused).toBe(false);
    const last = stack.store.getUser(1)?.status.arbs_prematch;
    expect(last?.lastGoodReadAt).toBeGreaterThan(last?.lastError?.at ?? 0);
  });

  it('a user who blocked the bot is no longer polled', async () => {
    stack = await startStack({ sandbox: { keys: [key(1), key(2)], seed: 5, world: { itemsPerService: 3, eventsPerService: 5 } } });
    addUser(stack.store, 1, ['arbs_prematch'], key(1));
    addUser(stack.store, 2, ['arbs_prematch'], key(2));
    // Telegram answers the first alert to chat 1 with "bot was blocked by the user".
    stack.telegram!.failNext({ method: 'sendMessage', chatId: 1, count: 1, code: 403, description: 'Forbidden: bot was blocked by the user' });
    stack.scheduler.start();
    await runStack(stack, 20_000);
    await flushAlerts(stack);
    expect(stack.store.getUser(1)?.blocked).toBe(true);
    const frozen = reads(stack, 1);
    await runStack(stack, 2 * 60_000);
    expect(reads(stack, 1)).toBe(frozen);
    expect(reads(stack, 2)).toBeGreaterThan(20);
    expect(stack.telegram!.messages(2).length).toBeGreaterThan(0);
  });
});
