/**
 * 200 users × 2 services for an hour of sandbox time, through the real client: not one request
 * over any limit (the sandbox's own counters), the token rotation the plan promised, and the
 * reads that go with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxKey } from '../../src/sandbox/index.js';
import type { Service } from '../../src/service/services.js';
import { addUser, RecordingNotifier } from './harness.js';
import { runStack, startStack, type Stack } from './stack.js';

const USERS = 200;
const PAIRS: [Service, Service][] = [
  ['arbs_live', 'arbs_prematch'],
  ['middles_live', 'valuebets_prematch'],
  ['valuebets_live', 'middles_prematch'],
];
const RUN_MS = 65 * 60_000;
const POLL_SECONDS = 60;

let stack: Stack;
let recorder: RecordingNotifier;
const keys: SandboxKey[] = Array.from({ length: USERS }, (_, i) => ({ accessKey: `user-${i + 1}-key`, secret: `user-${i + 1}-secret` }));

beforeAll(async () => {
  stack = await startStack({
    sandbox: { keys, seed: 11, world: { itemsPerService: 3, eventsPerService: 5, meanLifetimeMs: 10 * 60_000, moveEveryMs: 60_000 } },
    pollSeconds: POLL_SECONDS,
    storeDebounceMs: 2_000,
    notifier: (clock) => (recorder = new RecordingNotifier(() => clock.now())),
  });
  for (let i = 0; i < USERS; i++) {
    addUser(stack.store, i + 1, PAIRS[i % PAIRS.length]!, { accessKey: keys[i]!.accessKey, secret: keys[i]!.secret });
  }
  stack.scheduler.start();
  await runStack(stack, RUN_MS, 2_000);
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const hostOf = (s: Service) => `/${s.replace('_', '-')}`;

describe('200 users × 2 services over an hour', () => {
  it('sends not one request over any limit', () => {
    const counters = stack.sandbox.counters();
    expect(counters.breaches).toBe(0);
    expect(counters.status['429'] ?? 0).toBe(0);
    expect(counters.status['401'] ?? 0).toBe(0);
    expect(stack.scheduler.stats()).toMatchObject({ subscriptions: 400, errors: 0, deferred: 0 });
  });

  it('rotates each key’s tokens as planned: live in every window, prematch in half', () => {
    const { byKeyHost } = stack.sandbox.counters();
    const live: number[] = [];
    const prematch: number[] = [];
    for (let i = 0; i < USERS; i++) {
      const [l, p] = PAIRS[i % PAIRS.length]!;
      const tl = byKeyHost[`${keys[i]!.accessKey}|${hostOf(l)}|token`] ?? 0;
      const tp = byKeyHost[`${keys[i]!.accessKey}|${hostOf(p)}|token`] ?? 0;
      live.push(tl);
      prematch.push(tp);
      // 65 minutes: at most the hour's 18 plus one more window's worth.
      expect(tl + tp).toBeLessThanOrEqual(20);
      expect(stack.scheduler.planFor(i + 1)?.services[p]?.share).toBe(0.5);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(live)).toBeGreaterThanOrEqual(12);
    expect(mean(live)).toBeLessThanOrEqual(14);
    expect(mean(prematch)).toBeGreaterThanOrEqual(5.5);
    expect(mean(prematch)).toBeLessThanOrEqual(7.5);
  });

  it('reads each subscription as often as its coverage promised', () => {
    const { byKeyHost } = stack.sandbox.counters();
    const cov = stack.scheduler.coverage(1);
    const [l, p] = PAIRS[0]!;
    expect(cov[l]).toMatchObject({ share: 1, intervalMs: POLL_SECONDS * 1000, state: 'active', longestGapMs: 0 });
    expect(cov[p]?.share).toBe(0.5);
    // Promised: share × run time ÷ (interval + up to 10 % jitter).
    const promised = (share: number) => (share * RUN_MS) / (POLL_SECONDS * 1000 * 1.05);
    for (let i = 0; i < USERS; i++) {
      const [live, pre] = PAIRS[i % PAIRS.length]!;
      const rl = byKeyHost[`${keys[i]!.accessKey}|${hostOf(live)}|items`] ?? 0;
      const rp = byKeyHost[`${keys[i]!.accessKey}|${hostOf(pre)}|items`] ?? 0;
      expect(rl, `live reads of user ${i + 1}`).toBeGreaterThanOrEqual(promised(1) * 0.85);
      expect(rl).toBeLessThanOrEqual(promised(1) * 1.1);
      expect(rp, `prematch reads of user ${i + 1}`).toBeGreaterThanOrEqual(promised(0.5) * 0.75);
      expect(rp).toBeLessThanOrEqual(promised(0.5) * 1.3);
    }
    // The diff saw the world: new items were alerted for everyone.
    expect(new Set(recorder.events.filter((e) => e.event.type === 'new').map((e) => e.sub.userId)).size).toBe(USERS);
    expect(stack.scheduler.stats().lagMsP99).toBeLessThan(1_000);
  });
});
