/**
 * Drafts as the scheduler owns them (src/scheduler/drafts.ts): a draft stored by a bot that then
 * stopped is written by the next scheduler on the same store (drafts survive a restart), within the
 * key's token plan and its rolling hour as the ledger file kept it, never a request the service
 * refuses; a key the service refuses drops the draft and the user is told.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { filterSettingsSchema } from '../../src/service/filter-model.js';
import { addUser, RecordingNotifier } from './harness.js';
import { runStack, startStack, type Stack } from './stack.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const settings = filterSettingsSchema.parse({ minOvervalue: 3, minOdds: 1.5, maxOdds: 4 });

describe('a draft filter', () => {
  it('survives a restart: the next scheduler writes it when the plan allows, and tells the user', async () => {
    let notifier: RecordingNotifier | undefined;
    stack = await startStack({ notifier: (clock) => (notifier = new RecordingNotifier(() => clock.now())) });
    const { store, sandbox } = stack;
    addUser(store, 1, ['arbs_live', 'arbs_prematch'], { accessKey: sandbox.demoKey.accessKey, secret: sandbox.demoKey.secret });
    stack.scheduler.start();
    await runStack(stack, 20 * 60_000, 5_000);
    store.updateUser(1, (u) => {
      u.drafts.valuebets_prematch = { settings, createdAt: stack!.clock.now() };
    });
    await stack.restart();
    const expectedAt = stack.scheduler.coverage(1).valuebets_prematch?.nextTokenAt;
    expect(expectedAt).toBeDefined();
    for (let waited = 0; waited < 70 * 60_000 && !store.getUser(1)?.filters.valuebets_prematch; waited += 60_000) await runStack(stack, 60_000, 5_000);
    const user = store.getUser(1)!;
    expect(user.filters.valuebets_prematch?.settings).toEqual(settings);
    expect(user.drafts).toEqual({});
    expect(user.filters.valuebets_prematch!.savedAt).toBeLessThanOrEqual(expectedAt! + 60_000);
    expect(notifier!.drafts).toEqual([{ userId: 1, service: 'valuebets_prematch', outcome: 'live', at: user.filters.valuebets_prematch!.savedAt }]);
    // Then it is read like any filter, and the key never went over its hour.
    await runStack(stack, 60_000, 5_000);
    expect(store.getUser(1)?.status.valuebets_prematch?.lastGoodReadAt).not.toBeNull();
    expect(sandbox.counters().status['429']).toBeUndefined();
  }, 60_000);

  it('LIMIT_SCOPE=address: an edit waiting as a draft leaves its read group until written, then joins the group of its new filter', async () => {
    let notifier: RecordingNotifier | undefined;
    stack = await startStack({ limits: { scope: 'address' }, notifier: (clock) => (notifier = new RecordingNotifier(() => clock.now())) });
    const { store } = stack;
    addUser(store, 1, ['arbs_prematch'], { accessKey: stack.sandbox.demoKey.accessKey, secret: stack.sandbox.demoKey.secret });
    addUser(store, 2, ['arbs_prematch'], { accessKey: 'key-2', secret: 'secret-2' });
    stack.sandbox.addKey({ accessKey: 'key-2', secret: 'secret-2' });
    stack.scheduler.start();
    await runStack(stack, 30_000);
    const edited = filterSettingsSchema.parse({ minProfit: 2 });
    store.updateUser(1, (u) => {
      u.drafts.arbs_prematch = { settings: edited, createdAt: stack!.clock.now() };
    });
    stack.scheduler.refreshUser(1);
    await runStack(stack, 30_000);
    expect(store.getUser(1)?.filters.arbs_prematch?.settings).toEqual(edited);
    expect(store.getUser(1)?.drafts).toEqual({});
    expect(notifier!.drafts.map((d) => d.outcome)).toEqual(['live']);
    const readAt = store.getUser(1)?.status.arbs_prematch?.lastGoodReadAt ?? 0;
    await runStack(stack, 30_000);
    expect(store.getUser(1)?.status.arbs_prematch?.lastGoodReadAt ?? 0).toBeGreaterThan(readAt);
  });

  it('is dropped, and the user told, when the service refuses the key', async () => {
    let notifier: RecordingNotifier | undefined;
    stack = await startStack({ notifier: (clock) => (notifier = new RecordingNotifier(() => clock.now())) });
    const { store } = stack;
    addUser(store, 2, [], { accessKey: stack.sandbox.demoKey.accessKey, secret: 'not-the-secret-0000' });
    store.updateUser(2, (u) => {
      u.drafts.middles_live = { settings: filterSettingsSchema.parse({}), createdAt: 1 };
    });
    stack.scheduler.start();
    await runStack(stack, 30_000);
    expect(store.getUser(2)?.drafts).toEqual({});
    expect(store.getUser(2)?.filters).toEqual({});
    expect(notifier!.drafts.map((d) => d.outcome)).toEqual(['auth']);
  });
});
