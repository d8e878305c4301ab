import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createScheduler, type SchedulerOptions } from '../../src/scheduler/scheduler.js';
import { readPaceMs } from '../../src/scheduler/read-pace.js';
import { HOUR_MS } from '../../src/scheduler/token-plan.js';
import { DEFAULT_TUNING } from '../../src/scheduler/tuning.js';
import { ServiceError } from '../../src/service/errors.js';
import type { Service } from '../../src/service/services.js';
import { FakeClient, type Script } from './fake-client.js';
import { opp } from './fixtures.js';
import { addUser, plainVault, RecordingNotifier, runFor, tempStore } from './harness.js';
import { schedulerRigs } from './rig.js';
import { stopAfterEach } from '../support/teardown.js';
import { maxInWindow, minGap } from '../support/window.js';

const CONFIG = { LIMIT_TOKENS_PER_HOUR: 20, LIMIT_ITEMS_PER_MINUTE: 30, LIMIT_SCOPE: 'key', POLL_INTERVAL_SECONDS: 5 } as const;

const rig = schedulerRigs(CONFIG, 12345);
// Registered after the rigs' teardown, so it runs before it: what a test started on a rig's store stops first.
const stopAfter = stopAfterEach();

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);
const readTimes = (client: FakeClient, accessKey: string, service?: Service) => client.readsOf(accessKey, service).map((r) => r.at);

describe('token rotation', () => {
  it('keeps live readable all the time and prematch half of it, within 18 token requests per rolling hour', async () => {
    const { clock, store, client, scheduler } = await rig();
    addUser(store, 1, ['arbs_live', 'arbs_prematch']);
    const start = clock.now();
    scheduler.start();
    await runFor(clock, scheduler, 2 * HOUR_MS);

    const tokens = client.tokenRequests.map((t) => t.at);
    expect(maxInWindow(tokens, HOUR_MS)).toBeLessThanOrEqual(18);
    const secondHour = client.tokenRequests.filter((t) => t.at >= start + HOUR_MS);
    expect(secondHour.filter((t) => t.service === 'arbs_live')).toHaveLength(12);
    expect(secondHour.filter((t) => t.service === 'arbs_prematch')).toHaveLength(6);

    // Every read used a token requested at most 5 minutes before (never a read outside the plan's windows).
    for (const read of client.reads) {
      const token = client.tokenRequests.filter((t) => t.service === read.service && t.at <= read.at).at(-1);
      expect(read.at - token!.at).toBeLessThan(300_000);
    }

    const live = readTimes(client, 'key-1', 'arbs_live').filter((t) => t >= start + HOUR_MS);
    const prematch = readTimes(client, 'key-1', 'arbs_prematch').filter((t) => t >= start + HOUR_MS);
    // 5 s floor, 10 % jitter, and the last ~23 s of each token unused: about 630 reads an hour.
    expect(live.length).toBeGreaterThan(560);
    expect(live.length).toBeLessThanOrEqual(720);
    expect(prematch.length / live.length).toBeGreaterThan(0.42);
    expect(prematch.length / live.length).toBeLessThan(0.58);
    for (const service of ['arbs_live', 'arbs_prematch'] as const) {
      expect(Math.min(...gaps(readTimes(client, 'key-1', service)))).toBeGreaterThanOrEqual(5_000);
    }
    expect(client.reads.every((r) => r.opts?.wait === false && r.opts.priority === 'poll')).toBe(true);
    expect(scheduler.stats()).toMatchObject({ subscriptions: 2, errors: 0, deferred: 0 });
  });

  it('reports the coverage the plan gives, and the trade-off of adding a service', async () => {
    const { store, scheduler } = await rig();
    addUser(store, 1, ['arbs_live', 'arbs_prematch']);
    scheduler.start();
    expect(scheduler.coverage(1)).toMatchObject({
      arbs_live: { share: 1, intervalMs: 5_000, state: 'active' },
      arbs_prematch: { share: 0.5, intervalMs: 5_000, state: 'active' },
    });
    const withMiddles = scheduler.coverage(1, 'middles_live');
    expect(withMiddles.arbs_live?.share).toBe(1);
    expect(withMiddles.middles_live?.share).toBeCloseTo(5 / 12, 10);
    expect(withMiddles.arbs_prematch?.share).toBeCloseTo(1 / 12, 10);
    expect(scheduler.planFor(1)?.tokensPerCycle).toBe(18);

    store.updateUser(1, (u) => {
      u.filters.arbs_prematch!.paused = true;
    });
    scheduler.refreshUser(1);
    expect(scheduler.coverage(1).arbs_prematch).toEqual({ share: 0, intervalMs: 5_000, state: 'paused' });
    store.updateUser(1, (u) => {
      u.blocked = true;
    });
    expect(scheduler.coverage(1).arbs_live?.state).toBe('blocked');
    store.updateUser(1, (u) => {
      u.key = null;
    });
    expect(scheduler.coverage(1).arbs_live?.state).toBe('no-key');
    expect(scheduler.coverage(999)).toEqual({});
  });

  it('rotates six services and never exceeds the budget, even when the plan changes mid-hour', async () => {
    const { clock, store, client, scheduler } = await rig();
    addUser(store, 1, ['arbs_live']);
    scheduler.start();
    await runFor(clock, scheduler, 40 * 60_000);
    // 40 minutes of one live service used about 8 tokens; now five more services arrive.
    store.updateUser(1, (u) => {
      for (const s of ['middles_live', 'valuebets_live', 'arbs_prematch', 'middles_prematch', 'valuebets_prematch'] as const) {
        u.filters[s] = { ...u.filters.arbs_live!, savedAt: clock.now() };
      }
    });
    scheduler.refreshUser(1);
    await runFor(clock, scheduler, 2 * HOUR_MS);

    expect(maxInWindow(client.tokenRequests.map((t) => t.at), HOUR_MS)).toBeLessThanOrEqual(18);
    const lastHour = client.tokenRequests.filter((t) => t.at >= clock.now() - HOUR_MS);
    const per = (s: Service) => lastHour.filter((t) => t.service === s).length;
    expect(per('arbs_live')).toBe(12);
    expect(per('middles_live')).toBe(2);
    for (const s of ['valuebets_live', 'arbs_prematch', 'middles_prematch', 'valuebets_prematch'] as const) expect(per(s)).toBe(1);
    // Each service read only in its windows: reads per service follow its token count.
    const reads = (s: Service) => client.reads.filter((r) => r.service === s && r.at >= clock.now() - HOUR_MS).length;
    expect(reads('middles_live') / reads('arbs_live')).toBeCloseTo(2 / 12, 1);
    expect(reads('valuebets_prematch')).toBeGreaterThan(30);
  });
});

describe('polling', () => {
  it('starts a few subscriptions within one interval, and many no faster than the start-up pace', async () => {
    const firstReads = async (users: number) => {
      const { clock, store, client, scheduler } = await rig({ tuning: { startupReadsPerSecond: 4 } });
      for (let id = 1; id <= users; id++) addUser(store, id, ['arbs_live']);
      const start = clock.now();
      scheduler.start();
      await runFor(clock, scheduler, 30_000);
      return Array.from({ length: users }, (_, i) => readTimes(client, `key-${i + 1}`)[0]! - start);
    };
    // 12 subscriptions at 4 a second fit in the 5 s interval: that is the spread.
    expect(Math.max(...(await firstReads(12)))).toBeLessThan(5_000);
    // 80 take 20 s: spread over them, about a quarter in each 5 s.
    const many = await firstReads(80);
    expect(Math.max(...many)).toBeLessThan(20_000);
    expect(Math.max(...many)).toBeGreaterThan(15_000);
    expect(many.filter((t) => t < 5_000).length).toBeLessThan(32);
  });

  it('keeps the poll floor with jitter, so users do not read in step', async () => {
    const { clock, store, client, scheduler } = await rig({ config: { POLL_INTERVAL_SECONDS: 20 } });
    for (let id = 1; id <= 5; id++) addUser(store, id, ['arbs_prematch']);
    scheduler.start();
    await runFor(clock, scheduler, 10 * 60_000);
    const offsets = new Set<number>();
    for (let id = 1; id <= 5; id++) {
      const times = readTimes(client, `key-${id}`);
      expect(Math.min(...gaps(times))).toBeGreaterThanOrEqual(20_000);
      // Jitter stays within 10 % of the interval (token renewals aside).
      expect(gaps(times).filter((g) => g <= 22_000).length).toBeGreaterThan(gaps(times).length * 0.8);
      offsets.add(times.at(-1)! % 20_000);
    }
    expect(offsets.size).toBe(5);
  });

  it('shares a host fairly under LIMIT_SCOPE=address and uses its whole read limit, never more', async () => {
    // Tokens plentiful here: the read budget is what is shared.
    const { clock, store, client, scheduler } = await rig({ config: { LIMIT_SCOPE: 'address', LIMIT_TOKENS_PER_HOUR: 1_000 } });
    // Each on a filter of their own: twelve read groups (equal filters would share their reads).
    for (let id = 1; id <= 12; id++) addUser(store, id, ['arbs_prematch'], { filter: { minProfit: id } });
    scheduler.start();
    const start = clock.now();
    await runFor(clock, scheduler, 40 * 60_000, 500);
    const all = client.reads.map((r) => r.at);
    // The whole limit goes to polling (lookups take a slot only when one is waiting): 30.
    expect(maxInWindow(all, 60_000)).toBeLessThanOrEqual(30);
    // Once every key is on its token rhythm (a key starting mid-window loses the rest of its first window),
    // the turns are even: 30 minutes of about 2 reads a minute each.
    const settled = (i: number) => client.readsOf(`key-${i + 1}`).filter((r) => r.at >= start + 10 * 60_000).length;
    const counts = Array.from({ length: 12 }, (_, i) => settled(i));
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(4);
    // 40 minutes × 30 reads a minute: while one subscription renews its token, the others take the turns.
    expect(all.length).toBeGreaterThan(40 * 30 * 0.95);
    // 12 users on the host, one read every (60 s + the window's 100 ms margin) / 30 each.
    expect(scheduler.coverage(1).arbs_prematch).toMatchObject({ share: 1, intervalMs: 24_040, state: 'active' });
  });

  it('shares one token budget between all users under LIMIT_SCOPE=address, in turns', async () => {
    const { clock, store, client, scheduler } = await rig({ config: { LIMIT_SCOPE: 'address', LIMIT_SCOPE_TOKENS: 'address' } });
    // A filter each: the token turns alone are under test here, not read groups.
    for (let id = 1; id <= 6; id++) addUser(store, id, id <= 3 ? ['arbs_prematch'] : ['arbs_live', 'middles_prematch'], { filter: { minProfit: id } });
    scheduler.start();
    await runFor(clock, scheduler, 3 * HOUR_MS, 2_000);
    // One address, one budget: 18 token requests in any rolling hour, whichever keys made them.
    const all = client.tokenRequests.map((t) => t.at);
    expect(maxInWindow(all, HOUR_MS)).toBeLessThanOrEqual(18);
    expect(all.length).toBeGreaterThanOrEqual(3 * 18 - 2);
    // Every user got the same number of turns (±1), spread over their services.
    const perUser = Array.from({ length: 6 }, (_, i) => client.tokenRequests.filter((t) => t.accessKey === `key-${i + 1}`).length);
    expect(Math.max(...perUser) - Math.min(...perUser)).toBeLessThanOrEqual(1);
    const four = client.tokenRequests.filter((t) => t.accessKey === 'key-4');
    expect(Math.abs(four.filter((t) => t.service === 'arbs_live').length - four.filter((t) => t.service === 'middles_prematch').length)).toBeLessThanOrEqual(1);
    // Reads only with a token of one's turn.
    for (const read of client.reads) {
      const token = client.tokenRequests.filter((t) => t.accessKey === read.accessKey && t.service === read.service && t.at <= read.at).at(-1);
      expect(read.at - token!.at).toBeLessThan(300_000);
    }
    // What /status shows: 18 tokens an hour over 6 users = 3 windows of 12 each.
    expect(scheduler.coverage(1).arbs_prematch?.share).toBeCloseTo(3 / 12, 10);
    expect(scheduler.coverage(4).arbs_live?.share).toBeCloseTo(1.5 / 12, 10);
    expect(scheduler.planFor(1)).toBeUndefined();
  });

  it('does not poll a blocked user or a paused filter, and picks them up after a refresh', async () => {
    const { clock, store, client, scheduler } = await rig();
    addUser(store, 1, ['arbs_prematch'], { blocked: true });
    addUser(store, 2, ['arbs_prematch', 'arbs_live'], { paused: ['arbs_live'] });
    scheduler.start();
    await runFor(clock, scheduler, 60_000);
    expect(client.readsOf('key-1')).toHaveLength(0);
    expect(client.readsOf('key-2', 'arbs_live')).toHaveLength(0);
    expect(client.readsOf('key-2', 'arbs_prematch').length).toBeGreaterThan(8);

    store.updateUser(1, (u) => {
      u.blocked = false;
    });
    scheduler.refreshUser(1);
    await runFor(clock, scheduler, 30_000);
    expect(client.readsOf('key-1').length).toBeGreaterThan(3);

    // Blocked again (the outbox saw a 403): polling stops at once.
    store.updateUser(1, (u) => {
      u.blocked = true;
    });
    scheduler.refreshUser(1);
    const before = client.readsOf('key-1').length;
    await runFor(clock, scheduler, 60_000);
    expect(client.readsOf('key-1')).toHaveLength(before);
    expect(scheduler.stats().subscriptions).toBe(1);
  });

  it('does not poll a user taken off ALLOWED_USER_IDS, keeps their data, and picks them up when they are back', async () => {
    const allowed = new Set([2]);
    const { clock, store, client, scheduler } = await rig({ isAllowed: (id) => allowed.has(id) });
    addUser(store, 1, ['arbs_prematch']);
    addUser(store, 2, ['arbs_prematch']);
    scheduler.start();
    await runFor(clock, scheduler, 60_000);
    expect(client.readsOf('key-1')).toHaveLength(0);
    expect(client.readsOf('key-2').length).toBeGreaterThan(8);
    expect(scheduler.coverage(1).arbs_prematch?.share ?? 0).toBe(0);
    expect(store.getUser(1)?.filters.arbs_prematch).toBeDefined();

    allowed.add(1);
    scheduler.refreshUser(1);
    await runFor(clock, scheduler, 30_000);
    expect(client.readsOf('key-1').length).toBeGreaterThan(3);

    // Taken off again: the next due read finds out, without a refresh.
    allowed.delete(1);
    const before = client.readsOf('key-1').length;
    await runFor(clock, scheduler, 60_000);
    expect(client.readsOf('key-1').length).toBeLessThanOrEqual(before + 1);
  });

  it('diffs each read and hands the events over, and answers latestItems', async () => {
    let items = [opp('a'), opp('b')];
    const { clock, store, notifier, scheduler } = await rig({ script: () => items });
    addUser(store, 1, ['arbs_prematch'], { filter: { minProfit: 1 } });
    scheduler.start();
    await runFor(clock, scheduler, 20_000);
    expect(notifier.events.map((e) => `${e.event.type}:${e.event.itemId}`)).toEqual(['new:a', 'new:b']);
    expect(store.alerts.entries('1:arbs_prematch').map(([id]) => id)).toEqual(['a', 'b']);
    // The local filter: an item below the user's minimum profit is not alerted.
    items = [opp('a'), opp('c', [2, 2], 0.5)];
    store.alerts.set('1:arbs_prematch', 'b', { ...store.alerts.get('1:arbs_prematch', 'b')!, messageId: 5, lastEditAt: 0 });
    await runFor(clock, scheduler, 10_000);
    expect(notifier.events.map((e) => `${e.event.type}:${e.event.itemId}`)).toEqual(['new:a', 'new:b', 'gone:b']);
    expect(scheduler.latestItems(1).map((i) => i.id)).toEqual(['a']);
    expect(scheduler.latestItems(1, 'arbs_live')).toEqual([]);
    expect(store.getUser(1)?.status.arbs_prematch?.lastGoodReadAt).toBeGreaterThan(0);
    expect(scheduler.stats().lagMsP99).toBeLessThan(1_000);
    expect(scheduler.lastTickAt).toBeGreaterThan(clock.now() - 1_000);
  });
});

describe('faults stay local', () => {
  it('pauses on 401 and 403 with a notice, backs off 5xx alone, waits out a 429 for its scope', async () => {
    let serverFailures = 6;
    let rateLimited = 1;
    const script: Script = (call) => {
      if (call.accessKey === 'key-1') return new ServiceError('auth', 'token refused after renewal', { status: 401 });
      if (call.accessKey === 'key-2') return new ServiceError('forbidden', 'no access', { status: 403 });
      if (call.accessKey === 'key-3' && serverFailures > 0) {
        serverFailures -= 1;
        return new ServiceError('server', 'HTTP 503', { status: 503 });
      }
      if (call.accessKey === 'key-5' && rateLimited > 0) {
        rateLimited -= 1;
        return new ServiceError('rate_limited', 'HTTP 429', { status: 429, retryAfterMs: 90_000 });
      }
      return [opp('x')];
    };
    // Each read at its own moment (no read grid): the gaps below are exact, and the grid's few ms a
    // read would move this run's reads past the end of key-3's token, which then waits for its next window.
    const { clock, store, client, notifier, scheduler } = await rig({ script, tuning: { tickMs: 0 } });
    for (let id = 1; id <= 5; id++) addUser(store, id, ['arbs_prematch']);
    const start = clock.now();
    scheduler.start();
    await runFor(clock, scheduler, 10 * 60_000);

    expect(client.readsOf('key-1')).toHaveLength(1);
    expect(store.getUser(1)?.filters.arbs_prematch).toMatchObject({ paused: true, pausedReason: 'auth' });
    expect(client.readsOf('key-2')).toHaveLength(1);
    expect(store.getUser(2)?.filters.arbs_prematch).toMatchObject({ paused: true, pausedReason: 'forbidden' });
    expect(notifier.notices.sort((a, b) => a.userId - b.userId)).toEqual([
      { userId: 1, reason: 'auth', service: 'arbs_prematch' },
      { userId: 2, reason: 'forbidden', service: 'arbs_prematch' },
    ]);
    expect(store.getUser(2)?.status.arbs_prematch?.lastError?.kind).toBe('forbidden');

    // 5xx: growing waits (5, 10, 20, 40, 80, 160 s halved at most by jitter), then back to the floor.
    const three = gaps(readTimes(client, 'key-3'));
    expect(three.slice(0, 6).every((g, i) => g >= Math.max(5_000, 5_000 * 2 ** i * 0.5))).toBe(true);
    expect(three.slice(0, 6).reduce((a, b) => a + b, 0)).toBeGreaterThan(150_000);
    expect(three.slice(-10).every((g) => g < 6_000)).toBe(true);
    expect(store.getUser(3)?.status.arbs_prematch?.lastError?.kind).toBe('server');

    // 429: nothing for 90 s, then normal.
    const five = readTimes(client, 'key-5');
    expect(five[1]! - five[0]!).toBeGreaterThanOrEqual(90_000);
    // The healthy user never noticed.
    const four = gaps(readTimes(client, 'key-4'));
    expect(Math.max(...four)).toBeLessThan(60_000);
    expect(readTimes(client, 'key-4').length).toBeGreaterThan(100);
    expect(clock.now() - start).toBe(10 * 60_000);
    expect(scheduler.stats().errors).toBe(2 + 6 + 1);
  });

  it('treats a local refusal as a later turn, not an error', async () => {
    let refusals = 3;
    const { clock, store, client, scheduler } = await rig({
      script: () => (refusals-- > 0 ? new ServiceError('rate_limited', 'no room', { local: true, retryAfterMs: 12_000 }) : []),
    });
    addUser(store, 1, ['arbs_prematch']);
    scheduler.start();
    await runFor(clock, scheduler, 60_000);
    const times = readTimes(client, 'key-1');
    expect(gaps(times).slice(0, 3).every((g) => g >= 12_000)).toBe(true);
    expect(scheduler.stats()).toMatchObject({ errors: 0, deferred: 3 });
    expect(store.getUser(1)?.status.arbs_prematch?.lastError ?? null).toBeNull();
  });

  it('pauses with "auth" when the stored secret cannot be opened', async () => {
    const { clock, store, notifier, scheduler } = await rig();
    addUser(store, 1, ['arbs_live']);
    store.updateUser(1, (u) => {
      u.key = { ...u.key!, secretEnc: 'garbage' };
    });
    const broken = createScheduler({
      config: CONFIG,
      logger: silentLogger,
      store,
      client: new (await import('./fake-client.js')).FakeClient(clock),
      notifier,
      vault: {
        decrypt: () => {
          throw new Error('bad tag');
        },
      },
      clock,
    });
    stopAfter(broken);
    broken.start();
    await runFor(clock, broken, 10_000);
    expect(store.getUser(1)?.filters.arbs_live?.pausedReason).toBe('auth');
    expect(notifier.notices).toEqual([{ userId: 1, reason: 'auth', service: 'arbs_live' }]);
    expect(scheduler.stats().reads).toBe(0);
  });
});

describe('shutdown', () => {
  it('stops the loop and waits for the reads in flight', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const clock = new ManualClock();
    const { store, cleanup } = await tempStore(clock);
    stopAfter({ close: cleanup });
    const client = new FakeClient(clock);
    const slow = Object.assign(Object.create(client) as FakeClient, {
      readItems: async (...args: Parameters<FakeClient['readItems']>) => {
        const read = await client.readItems(...args);
        await gate;
        return read;
      },
    });
    const notifier = new RecordingNotifier(() => clock.now());
    const scheduler = createScheduler({ config: CONFIG, logger: silentLogger, store, client: slow, notifier, vault: plainVault, clock });
    addUser(store, 1, ['arbs_prematch']);
    scheduler.start();
    // The first read comes within one poll interval.
    await clock.advance(5_000);
    expect(scheduler.stats().inFlight).toBe(1);
    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(scheduler.stats().inFlight).toBe(0);
    const reads = client.reads.length;
    await clock.advance(60_000);
    expect(client.reads.length).toBe(reads);
  });
});

describe('ownership (a cluster worker polls only the users whose bucket lease it holds)', () => {
  it('reads only owned users; one no longer owned is dropped at its next dispatch, unread and without a refresh', async () => {
    const owned = new Set([2]);
    const { clock, store, client, scheduler } = await rig({ owns: (id) => owned.has(id) });
    addUser(store, 1, ['arbs_prematch']);
    addUser(store, 2, ['arbs_prematch']);
    scheduler.start();
    await runFor(clock, scheduler, 30_000);
    expect([client.readsOf('key-1').length, scheduler.stats().subscriptions]).toEqual([0, 1]);
    const sofar = client.readsOf('key-2').length;
    expect(sofar).toBeGreaterThanOrEqual(5);

    owned.clear();
    await runFor(clock, scheduler, 30_000);
    expect([client.readsOf('key-2').length, scheduler.stats().subscriptions]).toEqual([sofar, 0]);
  });

  it('refreshUsers takes a gained bucket’s users in, their first reads spread like a start; and drops them again', async () => {
    const owned = new Set<number>();
    const { clock, store, client, scheduler } = await rig({ owns: (id) => owned.has(id), tuning: { startupReadsPerSecond: 2 } });
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    for (const id of ids) addUser(store, id, ['arbs_prematch']);
    scheduler.start();
    await runFor(clock, scheduler, 5_000);
    expect(client.reads).toHaveLength(0);

    for (const id of ids) owned.add(id);
    const gainedAt = clock.now();
    scheduler.refreshUsers(ids);
    expect(scheduler.stats().subscriptions).toBe(20);
    await runFor(clock, scheduler, 12_000, 250);
    const firsts = ids.map((id) => (client.readsOf(`key-${id}`)[0]?.at ?? Infinity) - gainedAt);
    // 20 first reads at 2 a second: spread over 10 s, not all at once.
    expect(Math.max(...firsts)).toBeLessThanOrEqual(10_000);
    expect(Math.max(...firsts)).toBeGreaterThan(5_000);
    expect(firsts.filter((t) => t < 1_000).length).toBeLessThanOrEqual(4);

    owned.clear();
    scheduler.refreshUsers(ids);
    expect(scheduler.stats().subscriptions).toBe(0);
  });

  it('does not apply a read whose answer came after ownership ended (no alert, no state), and drops the subscription', async () => {
    const owned = new Set([1]);
    // The lease lapses while this read is out.
    const script = () => (owned.delete(1), [opp('x1')]);
    const { clock, store, client, notifier, scheduler } = await rig({ owns: (id) => owned.has(id), script });
    addUser(store, 1, ['arbs_prematch']);
    scheduler.start();
    await runFor(clock, scheduler, 10_000);
    expect(client.readsOf('key-1')).toHaveLength(1);
    expect(notifier.events).toHaveLength(0);
    expect(store.alerts.view('1:arbs_prematch').size).toBe(0);
    expect(scheduler.stats().subscriptions).toBe(0);
  });

  it('owns everyone by default: the same read alerts in the embedded bot', async () => {
    const { clock, store, notifier, scheduler } = await rig({ script: () => [opp('x1')] });
    addUser(store, 1, ['arbs_prematch']);
    scheduler.start();
    await runFor(clock, scheduler, 10_000);
    expect(notifier.events.map((e) => e.event.type)).toEqual(['new']);
  });
});

describe('the read grid', () => {
  const tick = DEFAULT_TUNING.tickMs;

  async function readsOfMany(tuning?: SchedulerOptions['tuning']) {
    const r = await rig({ config: { POLL_INTERVAL_SECONDS: 0 }, ...(tuning ? { tuning } : {}) });
    for (let id = 1; id <= 60; id++) addUser(r.store, id, ['arbs_live']);
    const start = r.clock.now();
    r.scheduler.start();
    await runFor(r.clock, r.scheduler, 4 * 60_000, 100);
    return { ...r, start };
  }

  /** Each key's reads: never over the limit, never much before their pace, and the pace itself kept. */
  function expectPaceKept(client: FakeClient, tickMs: number) {
    const paceMs = readPaceMs(CONFIG.LIMIT_ITEMS_PER_MINUTE);
    for (let id = 1; id <= 60; id++) {
      const times = readTimes(client, `key-${id}`);
      expect(maxInWindow(times, 60_000)).toBeLessThanOrEqual(CONFIG.LIMIT_ITEMS_PER_MINUTE);
      // A read may start up to a tick closer to the one before than the pace, when that one was taken late.
      expect(minGap(times)).toBeGreaterThanOrEqual(paceMs - tickMs);
      // The pace is counted from when each read was due, not from when the grid let it start:
      // on average one pace and half the jitter apart, whatever the tick.
      const meanGap = (times.at(-1)! - times[0]!) / (times.length - 1);
      expect(meanGap).toBeGreaterThanOrEqual(paceMs);
      expect(meanGap).toBeLessThanOrEqual(paceMs * (1 + DEFAULT_TUNING.jitterRatio));
    }
  }

  it('starts the reads due within one tick together at its end: never before they are due, at most one tick late, the whole read budget used', async () => {
    expect(tick).toBeGreaterThan(0);
    const { client, scheduler } = await readsOfMany();
    expect(client.reads.every((r) => r.at % tick === 0)).toBe(true);
    // Batched: far fewer moments of waking than reads.
    const moments = new Set(client.reads.map((r) => r.at)).size;
    expect(moments).toBeLessThan(client.reads.length * 0.8);
    expect(scheduler.stats().lagMsP99).toBeLessThanOrEqual(tick);
    expectPaceKept(client, tick);
  });

  it('keeps the pace on a coarse grid: a read taken late does not push the next ones out', async () => {
    const coarse = 250;
    const { client } = await readsOfMany({ tickMs: coarse });
    expect(client.reads.every((r) => r.at % coarse === 0)).toBe(true);
    expectPaceKept(client, coarse);
  });

  it('keeps a read group’s pace on a coarse grid under LIMIT_SCOPE=address: its turns counted from when they were due', async () => {
    const coarse = 250;
    const { clock, store, client, scheduler } = await rig({ config: { LIMIT_SCOPE: 'address', LIMIT_TOKENS_PER_HOUR: 1_000, POLL_INTERVAL_SECONDS: 0 }, tuning: { tickMs: coarse } });
    // One filter: one group, whose members read for it in turns, alone on the host.
    for (let id = 1; id <= 3; id++) addUser(store, id, ['arbs_prematch']);
    scheduler.start();
    const start = clock.now();
    await runFor(clock, scheduler, 12 * 60_000, 250);
    const settled = client.reads.map((r) => r.at).filter((at) => at >= start + 2 * 60_000);
    expect(maxInWindow(settled, 60_000)).toBeLessThanOrEqual(CONFIG.LIMIT_ITEMS_PER_MINUTE);
    const paceMs = readPaceMs(CONFIG.LIMIT_ITEMS_PER_MINUTE);
    const meanGap = (settled.at(-1)! - settled[0]!) / (settled.length - 1);
    expect(meanGap).toBeLessThanOrEqual(paceMs * (1 + DEFAULT_TUNING.jitterRatio));
  });

  it('paces reads by how long the client’s limiter counts them: a cluster’s longer shared window is never met full', async () => {
    const windowMs = 60_350;
    const r = await rig({ config: { POLL_INTERVAL_SECONDS: 0 }, itemWindowMs: windowMs });
    for (let id = 1; id <= 60; id++) addUser(r.store, id, ['arbs_live']);
    r.scheduler.start();
    await runFor(r.clock, r.scheduler, 4 * 60_000, 100);
    for (let id = 1; id <= 60; id++) {
      const times = readTimes(r.client, `key-${id}`);
      expect(maxInWindow(times, windowMs)).toBeLessThanOrEqual(CONFIG.LIMIT_ITEMS_PER_MINUTE);
      const meanGap = (times.at(-1)! - times[0]!) / (times.length - 1);
      expect(meanGap).toBeLessThanOrEqual((windowMs / CONFIG.LIMIT_ITEMS_PER_MINUTE) * (1 + DEFAULT_TUNING.jitterRatio));
    }
  });

  it('with tickMs 0 starts each read at its own moment', async () => {
    const { client } = await readsOfMany({ tickMs: 0 });
    expect(client.reads.some((r) => r.at % tick !== 0)).toBe(true);
  });
});
