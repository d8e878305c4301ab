/**
 * Read groups under LIMIT_SCOPE=address (src/scheduler/read-groups.ts): subscriptions of a service
 * with equal filters share one read per turn, the answer serves every member still owned and
 * entitled, readers rotate, and the groups of a host take turns within its read limit.
 */
import { describe, expect, it } from 'vitest';
import { chooseReader, filterFingerprint } from '../../src/scheduler/read-groups.js';
import type { Sub } from '../../src/scheduler/subscriptions.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import type { Eligibility } from '../../src/scheduler/token-gate.js';
import { ServiceError } from '../../src/service/errors.js';
import { defaultFilter } from '../../src/service/filter-model.js';
import type { Store } from '../../src/store/port.js';
import { stopAfterEach } from '../support/teardown.js';
import { maxInWindow } from '../support/window.js';
import { opp } from './fixtures.js';
import { addUser, plainVault, RecordingNotifier, runFor } from './harness.js';
import { createScheduler } from '../../src/scheduler/scheduler.js';
import { silentLogger } from '../../src/logger.js';
import { schedulerRigs } from './rig.js';
import { runStack, startStack } from './stack.js';

const CONFIG = { LIMIT_TOKENS_PER_HOUR: 20, LIMIT_ITEMS_PER_MINUTE: 30, LIMIT_SCOPE: 'address', POLL_INTERVAL_SECONDS: 0 } as const;

const rig = schedulerRigs(CONFIG, 777);
const stopAfter = stopAfterEach();

/** Users 1..n on arbs_prematch with the same filter, each with their own key. */
const sameFilter = (store: Store, n: number, from = 1) => {
  for (let id = from; id < from + n; id++) addUser(store, id, ['arbs_prematch'], { lang: id % 2 === 0 ? 'ru' : 'en' });
};

const newAlerts = (notifier: RecordingNotifier, userId: number, itemId: string) =>
  notifier.events.filter((e) => e.sub.userId === userId && e.event.type === 'new' && e.event.item.id === itemId);

describe('read groups (LIMIT_SCOPE=address)', () => {
  it('fingerprints what the service is sent: equal settings alike, ids in any order alike, a new bound not', () => {
    const base = defaultFilter();
    expect(filterFingerprint('arbs_live', { ...base, sports: [2, 1] })).toBe(filterFingerprint('arbs_live', { ...base, sports: [1, 2] }));
    expect(filterFingerprint('arbs_live', base)).not.toBe(filterFingerprint('arbs_live', { ...base, minProfit: 1 }));
    // valuebets ignore profit bounds: the service is sent the same body.
    expect(filterFingerprint('valuebets_live', base)).toBe(filterFingerprint('valuebets_live', { ...base, maxProfit: 5 }));
  });

  it('chooses the reader in turn after the last one: an unchecked member that may request a token, else a holder, else a requester', () => {
    const member = (id: string, over: Partial<Sub> = {}) => ({ id, inFlight: false, lastStartAt: 0, ...over }) as Sub;
    const members = [member('1:arbs_live'), member('2:arbs_live'), member('3:arbs_live'), member('4:arbs_live')];
    const now = 10 * 60_000;
    const verify = 15 * 60_000;
    // 2 and 4 hold tokens, 1 and 3 may request one.
    const gate = (sub: Sub): Eligibility => ({ ok: true, acquire: sub.id.startsWith('1') || sub.id.startsWith('3'), window: 0 });
    const pick = (group: { members: Sub[]; lastReaderId: string | undefined }, g = gate) => {
      const c = chooseReader(group, now, verify, g);
      return c.ok ? `${c.reader.id.slice(0, 1)}${c.acquire ? '+token' : ''}` : `wait ${c.at - now}`;
    };
    expect(pick({ members, lastReaderId: undefined })).toBe('2');
    expect(pick({ members, lastReaderId: '2:arbs_live' })).toBe('4');
    expect(pick({ members, lastReaderId: '4:arbs_live' })).toBe('2');
    // Member 3 has not read for 15 min: it goes first when its plan lets it request a token.
    members[2] = member('3:arbs_live', { lastStartAt: now - verify });
    expect(pick({ members, lastReaderId: '2:arbs_live' })).toBe('3+token');
    // Member 4 is still reading (for a group it left): the next holder after it.
    members[2] = member('3:arbs_live', { lastStartAt: now - 60_000 });
    members[3] = member('4:arbs_live', { inFlight: true });
    expect(pick({ members, lastReaderId: '3:arbs_live' })).toBe('2');
    // Nobody holds a token: the first in turn that may request one.
    expect(pick({ members, lastReaderId: '2:arbs_live' }, () => ({ ok: true, acquire: true, window: 0 }))).toBe('3+token');
    // Nobody may read: the earliest moment one may (a member reading elsewhere is looked at again in 1 s).
    expect(pick({ members, lastReaderId: undefined }, () => ({ ok: false, at: now + 5_000 }))).toBe('wait 1000');
  });

  it('reads once for all members with equal filters and applies the answer to each; a changed filter splits the group', async () => {
    let items = [opp('a')];
    const { clock, store, client, notifier, scheduler } = await rig({ script: () => items });
    // Languages differ (they change nothing the service returns): still one group.
    sameFilter(store, 4);
    scheduler.start();
    await runFor(clock, scheduler, 60_000, 500);
    // One group on the host: one read per turn (a read every 2 s), not four.
    expect(client.reads.length).toBeGreaterThan(25);
    expect(client.reads.length).toBeLessThanOrEqual(31);
    expect(new Set(client.reads.map((r) => r.at)).size).toBe(client.reads.length);
    // No member's plan is known at first: each reads once for itself (its first alert comes from
    // its own key's read), then the four are one group.
    for (let id = 1; id <= 4; id++) {
      const [first] = newAlerts(notifier, id, 'a');
      expect(client.reads.find((r) => r.at === first!.at)?.accessKey).toBe(`key-${id}`);
    }
    expect(client.reads.slice(0, 4).map((r) => r.accessKey).sort()).toEqual(['key-1', 'key-2', 'key-3', 'key-4']);
    expect(scheduler.coverage(1).arbs_prematch?.sharedWith).toBe(3);
    expect(scheduler.coverage(2).arbs_prematch?.intervalMs).toBe(2_003);

    // User 4 narrows the filter: a group of its own, taking turns with the others' group.
    store.updateUser(4, (u) => {
      u.filters.arbs_prematch!.settings = { ...defaultFilter(), minProfit: -5 };
    });
    scheduler.refreshUser(4);
    const before = client.reads.length;
    items = [opp('a'), opp('b')];
    await runFor(clock, scheduler, 60_000, 500);
    const after = client.reads.slice(before);
    const fours = after.filter((r) => r.accessKey === 'key-4').length;
    // Fair between groups whatever their size: half the turns each.
    expect(fours).toBeGreaterThanOrEqual(13);
    expect(after.length - fours).toBeGreaterThanOrEqual(13);
    expect(maxInWindow(client.reads.map((r) => r.at), 60_000)).toBeLessThanOrEqual(30);
    expect(scheduler.coverage(1).arbs_prematch?.sharedWith).toBe(2);
    expect(scheduler.coverage(4).arbs_prematch?.sharedWith).toBeUndefined();
    expect(scheduler.coverage(4).arbs_prematch?.intervalMs).toBe(4_007);
    // 'b' reached user 4 by a read of its own key only, and the others by their group's reads.
    const b4 = newAlerts(notifier, 4, 'b')[0]!;
    expect(after.find((r) => r.at === b4.at)?.accessKey).toBe('key-4');
    const b1 = newAlerts(notifier, 1, 'b')[0]!;
    expect(after.find((r) => r.at === b1.at)?.accessKey).not.toBe('key-4');
  });

  it('rotates the reader: every member reads now and then, its access checked at least every 15 min, tokens from every key', async () => {
    const { clock, store, client, scheduler } = await rig();
    const n = 8;
    sameFilter(store, n);
    scheduler.start();
    await runFor(clock, scheduler, 60 * 60_000, 1_000);
    const ids = Array.from({ length: n }, (_, i) => i + 1);
    const perKey = ids.map((id) => client.readsOf(`key-${id}`).length);
    const total = perKey.reduce((a, b) => a + b, 0);
    for (const count of perKey) {
      expect(count).toBeGreaterThan(total * 0.04);
      expect(count).toBeLessThan(total * 0.3);
    }
    // No key goes unchecked by the service for longer than groupVerifyEveryMs (15 min) and a round of turns.
    for (const id of ids) {
      const times = [0, ...client.readsOf(`key-${id}`).map((r) => r.at - client.reads[0]!.at), 60 * 60_000];
      const longest = Math.max(...times.slice(1).map((t, i) => t - times[i]!));
      expect(longest).toBeLessThan(15 * 60_000 + n * 2_100);
    }
    const tokensPerKey = ids.map((id) => client.tokenRequests.filter((t) => t.accessKey === `key-${id}`).length);
    expect(Math.min(...tokensPerKey)).toBeGreaterThanOrEqual(4);
    // A held token is used first: far fewer token requests than every key holding one all the time (8 × 12).
    expect(tokensPerKey.reduce((a, b) => a + b, 0)).toBeLessThan(60);
  });

  it('does not serve a member paused while the read was out; a 401 on the reader pauses it alone and the next turn reads with another', async () => {
    let revoked = false;
    let items = [opp('a')];
    const { clock, store, client, notifier, scheduler } = await rig({
      script: (call) => {
        // User 2 pauses the filter while user 1's read is out.
        if (call.accessKey === 'key-1' && items.length === 2) {
          store.updateUser(2, (u) => {
            u.filters.arbs_prematch!.paused = true;
            u.filters.arbs_prematch!.pausedReason = 'user';
          });
        }
        if (call.accessKey === 'key-3' && revoked) return new ServiceError('auth', 'revoked');
        return items;
      },
    });
    sameFilter(store, 3);
    scheduler.start();
    await runFor(clock, scheduler, 10_000, 500);
    // The next read is key-1's (turns go 1, 2, 3): 'b' appears for it.
    while (client.reads.at(-1)!.accessKey !== 'key-3') await runFor(clock, scheduler, 500, 500);
    items = [opp('a'), opp('b')];
    await runFor(clock, scheduler, 2_500, 500);
    expect(client.reads.at(-1)!.accessKey).toBe('key-1');
    expect(newAlerts(notifier, 1, 'b')).toHaveLength(1);
    expect(newAlerts(notifier, 3, 'b')).toHaveLength(1);
    expect(newAlerts(notifier, 2, 'b')).toHaveLength(0);

    // Key 3 is revoked: its read pauses user 3 alone, and key 1 reads at the next slot.
    revoked = true;
    while (client.reads.at(-1)!.accessKey !== 'key-3') await runFor(clock, scheduler, 500, 500);
    const failedAt = client.reads.at(-1)!.at;
    items = [opp('a'), opp('b'), opp('c')];
    await runFor(clock, scheduler, 5_000, 500);
    expect(notifier.notices).toEqual([{ userId: 3, reason: 'auth', service: 'arbs_prematch' }]);
    expect(store.getUser(3)!.filters.arbs_prematch!.paused).toBe(true);
    const next = client.reads.find((r) => r.at > failedAt)!;
    expect(next.accessKey).toBe('key-1');
    expect(next.at - failedAt).toBeLessThanOrEqual(2_100);
    expect(newAlerts(notifier, 1, 'c')).toHaveLength(1);
    expect(newAlerts(notifier, 3, 'c')).toHaveLength(0);
    expect(client.reads.filter((r) => r.at > failedAt && r.accessKey !== 'key-1')).toEqual([]);
  });

  it('shares reads only within one plan: a masked key’s read never serves a member who pays, nor a full one a member who does not', async () => {
    // Keys 1 and 2 have paid access; keys 3 and 4 get the odds masked. Key 2's plan lapses later.
    const maskedKeys = new Set(['key-3', 'key-4']);
    const masked = (o: Opportunity): Opportunity => ({ ...o, masked: true, legs: o.legs.map((l) => ({ ...l, odds: null })) });
    let items = [opp('a')];
    const { clock, store, client, notifier, scheduler } = await rig({
      script: (call) => (maskedKeys.has(call.accessKey) ? items.map(masked) : items),
    });
    sameFilter(store, 4);
    scheduler.start();
    await runFor(clock, scheduler, 20_000, 500);

    /** Every alert of `userId` since `from` came from a read by a key of its own plan, and shows that plan. */
    const samePlan = (userId: number, plan: Set<string>, from = 0) => {
      let seen = 0;
      for (const e of notifier.events) {
        if (e.sub.userId !== userId || e.at < from || e.event.type !== 'new') continue;
        seen += 1;
        const reader = client.reads.find((r) => r.at === e.at)!.accessKey;
        expect(plan.has(reader), `user ${userId} served by ${reader}`).toBe(true);
        expect(e.event.item.masked).toBe(plan === maskedKeys);
      }
      expect(seen).toBeGreaterThan(0);
    };
    items = [opp('a'), opp('b')];
    await runFor(clock, scheduler, 20_000, 500);
    const fullKeys = new Set(['key-1', 'key-2']);
    samePlan(1, fullKeys);
    samePlan(2, fullKeys);
    samePlan(3, maskedKeys);
    samePlan(4, maskedKeys);
    // Two groups of two: each member shares with the one of its plan.
    for (let id = 1; id <= 4; id++) expect(scheduler.coverage(id).arbs_prematch?.sharedWith).toBe(1);

    // Key 2's plan lapses: at its own next read (the rotation brings it) it moves to the masked group,
    // and from then on only masked reads serve it, and its reads never serve user 1.
    maskedKeys.add('key-2');
    while (client.reads.at(-1)!.accessKey !== 'key-2') await runFor(clock, scheduler, 500, 500);
    const lapsedAt = client.reads.at(-1)!.at;
    expect(scheduler.coverage(2).arbs_prematch?.sharedWith).toBe(2);
    expect(scheduler.coverage(1).arbs_prematch?.sharedWith).toBeUndefined();
    items = [opp('a'), opp('b'), opp('c')];
    await runFor(clock, scheduler, 30_000, 500);
    samePlan(2, maskedKeys, lapsedAt + 1);
    samePlan(1, fullKeys, lapsedAt + 1);
    samePlan(3, maskedKeys, lapsedAt + 1);
  });

  it('keeps each member’s plan in its stored status (with a digest of its key): after a restart one read serves the whole group at once', async () => {
    let items = [opp('a')];
    const { clock, store, client, scheduler } = await rig({ script: () => items });
    sameFilter(store, 4);
    scheduler.start();
    await runFor(clock, scheduler, 20_000, 500);
    await scheduler.stop();
    for (let id = 1; id <= 4; id++) expect(store.getUser(id)?.status.arbs_prematch?.plan?.tier).toBe('full');
    expect(JSON.stringify(store.getUser(1)?.status)).not.toContain('key-1');
    // User 4 connects another key: its plan is not known for that key.
    store.updateUser(4, (u) => {
      u.key = { ...u.key!, accessKey: 'key-4b' };
    });

    const notifier = new RecordingNotifier(() => clock.now());
    const again = createScheduler({ config: CONFIG, logger: silentLogger, store, client, notifier, vault: plainVault, clock, random: () => 0.5 });
    try {
      items = [opp('a'), opp('z')];
      const before = client.reads.length;
      again.start();
      await runFor(clock, again, 6_000, 500);
      // The first read after the restart served the three members whose plan is remembered; user 4 read for itself.
      const first = client.reads[before]!;
      expect(first.accessKey).not.toBe('key-4b');
      for (let id = 1; id <= 3; id++) expect(newAlerts(notifier, id, 'z').map((e) => e.at)).toEqual([first.at]);
      const [z4] = newAlerts(notifier, 4, 'z');
      expect(client.reads.find((r) => r.at === z4!.at)?.accessKey).toBe('key-4b');
    } finally {
      await again.stop();
    }
  });

  it('forms a group of owned users only, and applies an answer only to members still owned', async () => {
    const owned = new Set([1, 2, 3]);
    let items = [opp('a')];
    const { clock, store, client, notifier, scheduler } = await rig({
      owns: (id) => owned.has(id),
      script: (call) => {
        // The lease of user 3 lapses while user 1's read is out.
        if (call.accessKey === 'key-1' && items.length === 2) owned.delete(3);
        return items;
      },
    });
    sameFilter(store, 4);
    scheduler.start();
    await runFor(clock, scheduler, 10_000, 500);
    expect(client.readsOf('key-4')).toEqual([]);
    expect(newAlerts(notifier, 4, 'a')).toHaveLength(0);
    expect(scheduler.coverage(1).arbs_prematch?.sharedWith).toBe(2);
    while (client.reads.at(-1)!.accessKey !== 'key-3') await runFor(clock, scheduler, 500, 500);
    items = [opp('a'), opp('b')];
    await runFor(clock, scheduler, 2_500, 500);
    expect(client.reads.at(-1)!.accessKey).toBe('key-1');
    expect(newAlerts(notifier, 1, 'b')).toHaveLength(1);
    expect(newAlerts(notifier, 3, 'b')).toHaveLength(0);
    expect(store.alerts.view('3:arbs_prematch').has(opp('b').id)).toBe(false);
    await runFor(clock, scheduler, 20_000, 500);
    expect(client.readsOf('key-3').filter((r) => r.at > clock.now() - 20_000)).toEqual([]);
    expect(scheduler.stats().subscriptions).toBe(2);
  });

  it('many users on two filters, against the sandbox counting per address: one budget per host, none over it, everyone alerted', async () => {
    const users = 24;
    const keys = Array.from({ length: users }, (_, i) => ({ accessKey: `grp-key-${i + 1}`, secret: `grp-secret-${i + 1}` }));
    const stack = stopAfter(await startStack({
      // Reads counted per address, tokens per key (as the real token endpoint).
      sandbox: { keys, seed: 5, limits: { scope: 'address', tokenScope: 'key' }, world: { itemsPerService: 3 } },
      limits: { scope: 'address' },
      pollSeconds: 0,
      notifier: (clock) => new RecordingNotifier(() => clock.now()),
    }));
    for (let i = 0; i < users; i++) {
      addUser(stack.store, i + 1, ['arbs_prematch', 'arbs_live'], { ...keys[i]!, filter: { minProfit: i < 16 ? -100 : -99 } });
    }
    stack.scheduler.start();
    await runStack(stack, 20 * 60_000, 1_000);
    const { byKeyHost, breaches, status } = stack.sandbox.counters();
    expect(breaches).toBe(0);
    expect(status['429'] ?? 0).toBe(0);
    const reads = (host: string) => Object.entries(byKeyHost).filter(([id]) => id.endsWith(`${host}|items`)).reduce((a, [, n]) => a + n, 0);
    // Each host's whole 30 a minute (less the start), shared by its two groups.
    for (const host of ['/arbs-prematch', '/arbs-live']) {
      expect(reads(host)).toBeLessThanOrEqual(20 * 30 + 1);
      expect(reads(host)).toBeGreaterThan(20 * 30 * 0.9);
    }
    // Everyone is read for a new item within a few turns: every user got alerts on both services.
    const notifier = stack.notifier as RecordingNotifier;
    for (let id = 1; id <= users; id++) {
      for (const service of ['arbs_prematch', 'arbs_live'] as const) {
        expect(notifier.events.some((e) => e.sub.userId === id && e.sub.service === service && e.event.type === 'new')).toBe(true);
      }
    }
    const cov = stack.scheduler.coverage(1).arbs_live!;
    expect(cov.sharedWith).toBe(15);
    expect(cov.share).toBeGreaterThan(0.99);
    // Two groups on the host: a read every ~4 s each.
    expect(cov.intervalMs).toBeGreaterThan(3_900);
    expect(cov.intervalMs).toBeLessThan(4_100);
  });
});
