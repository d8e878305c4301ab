/**
 * LIMIT_SCOPE=address against the sandbox counting per address: the users of one host share its
 * read budget in turn, and nothing goes over the limit. Each user here has a filter of their own,
 * so each subscription is its own read group; groups of many are in read-groups.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { stopAfterEach } from '../support/teardown.js';
import { addUser, RecordingNotifier } from './harness.js';
import { runStack, startStack } from './stack.js';

const stopAfter = stopAfterEach();

describe('LIMIT_SCOPE=address', () => {
  it('shares each host between its users in turn, within the per-address read limit', async () => {
    const users = 15;
    const keys = Array.from({ length: users }, (_, i) => ({ accessKey: `addr-key-${i + 1}`, secret: `addr-secret-${i + 1}` }));
    const stack = stopAfter(await startStack({
      // Tokens plentiful here: the per-host read budget is what is shared.
      sandbox: { keys, seed: 4, limits: { scope: 'address', itemsPerMinute: 30, tokensPerHour: 10_000 }, world: { itemsPerService: 2 } },
      limits: { scope: 'address', itemsPerMinute: 30, tokensPerHour: 10_000 },
      notifier: (clock) => new RecordingNotifier(() => clock.now()),
    }));
    for (let i = 0; i < users; i++) {
      // A filter each: fifteen read groups (equal filters would share their reads: read-groups.test.ts).
      addUser(stack.store, i + 1, i < 10 ? ['arbs_prematch'] : ['arbs_prematch', 'arbs_live'], { ...keys[i]!, filter: { minProfit: -i } });
    }
    stack.scheduler.start();
    await runStack(stack, 15 * 60_000);

    const { byKeyHost, breaches } = stack.sandbox.counters();
    expect(breaches).toBe(0);
    const prematch = keys.map((k) => byKeyHost[`${k.accessKey}|/arbs-prematch|items`] ?? 0);
    const total = prematch.reduce((a, b) => a + b, 0);
    // The whole 30 reads a minute on the host (quota use ≥ 0.95): while one user renews a token, the others read.
    expect(total).toBeLessThanOrEqual(15 * 30 + 1);
    expect(total).toBeGreaterThan(15 * 30 * 0.95);
    // Round robin: every user got about the same number of turns (the five with a second service too).
    expect(Math.min(...prematch)).toBeGreaterThan((total / users) * 0.7);
    expect(Math.max(...prematch)).toBeLessThan((total / users) * 1.3);
    // The coverage the bot would show: 15 users on the host, 2.003 s each → a read every 30.05 s.
    expect(stack.scheduler.coverage(1).arbs_prematch).toMatchObject({ share: 1, intervalMs: 30_050, state: 'active' });
    // The live host has five users: a read every 10 s.
    expect(stack.scheduler.coverage(11).arbs_live?.intervalMs).toBe(10_017);
  });

  it('shares the address’s 20 tokens an hour between all users in turn, and none over the limit', async () => {
    const users = 6;
    const keys = Array.from({ length: users }, (_, i) => ({ accessKey: `turn-key-${i + 1}`, secret: `turn-secret-${i + 1}` }));
    const stack = stopAfter(await startStack({
      sandbox: { keys, seed: 8, limits: { scope: 'address' }, world: { itemsPerService: 2 } },
      limits: { scope: 'address', tokenScope: 'address' },
      notifier: (clock) => new RecordingNotifier(() => clock.now()),
    }));
    for (let i = 0; i < users; i++) {
      addUser(stack.store, i + 1, i % 2 === 0 ? ['arbs_live'] : ['arbs_prematch', 'middles_live'], { ...keys[i]!, filter: { minProfit: -i } });
    }
    stack.scheduler.start();
    await runStack(stack, 2 * 60 * 60_000, 2_000);

    const { byKeyHost, breaches, status } = stack.sandbox.counters();
    expect(breaches).toBe(0);
    expect(status['429'] ?? 0).toBe(0);
    const tokens = keys.map((k) =>
      Object.entries(byKeyHost)
        .filter(([id]) => id.startsWith(`${k.accessKey}|`) && id.endsWith('|token'))
        .reduce((sum, [, n]) => sum + n, 0),
    );
    // Two hours of 18: 36 tokens, six each.
    expect(tokens.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(34);
    expect(tokens.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(38);
    expect(Math.max(...tokens) - Math.min(...tokens)).toBeLessThanOrEqual(1);
    expect(stack.scheduler.coverage(1).arbs_live?.share).toBeCloseTo(3 / 12, 10);
    expect(stack.scheduler.coverage(2).middles_live?.share).toBeCloseTo(1.5 / 12, 10);
    expect(stack.scheduler.stats().deferred).toBe(0);
  });
});

describe('LIMIT_SCOPE=address, users dropped from a host', () => {
  it('gives the turns the dropped users held to those left: a worker giving up buckets keeps its host at the full pace', async () => {
    const users = 30;
    const keys = Array.from({ length: users }, (_, i) => ({ accessKey: `drop-key-${i + 1}`, secret: `drop-secret-${i + 1}` }));
    // A cluster's worker that held every bucket, then gives two thirds of them to newcomers.
    let owned = (id: number) => id >= 1;
    const stack = stopAfter(await startStack({
      sandbox: { keys, seed: 5, limits: { scope: 'address', itemsPerMinute: 30, tokensPerHour: 10_000 }, world: { itemsPerService: 2 } },
      limits: { scope: 'address', itemsPerMinute: 30, tokensPerHour: 10_000 },
      pollSeconds: 0,
      notifier: (clock) => new RecordingNotifier(() => clock.now()),
      owns: (id) => owned(id),
    }));
    for (let i = 0; i < users; i++) addUser(stack.store, i + 1, ['arbs_prematch'], keys[i]!);
    stack.scheduler.start();
    // Every user has had a first read and holds a turn: the host's chain of turns is a minute long.
    await runStack(stack, 10_000, 500);
    owned = (id) => id <= 10;
    stack.scheduler.refreshUsers(Array.from({ length: users - 10 }, (_, i) => i + 11));
    const from = stack.clock.now();
    await runStack(stack, 40_000, 500);

    const { readLog, breaches } = stack.sandbox.counters();
    expect(breaches).toBe(0);
    const after = readLog.filter((r) => r.at >= from);
    // Only the ten users kept are read, and at the host's full pace (one read every 2 s: 20 in 40 s).
    expect(new Set(after.map((r) => r.accessKey)).size).toBe(10);
    expect(after.every((r) => Number(r.accessKey.slice('drop-key-'.length)) <= 10)).toBe(true);
    expect(after.length).toBeGreaterThanOrEqual(18);
    expect(after.length).toBeLessThanOrEqual(21);
  });
});
