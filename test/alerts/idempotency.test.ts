/**
 * Alert idempotency keys against an outbox that, like the cluster's queue, answers a key it has
 * seen with the first answer and sends nothing: a changed destination or a filter made again must
 * get alerts of their own, never another chat's message id (which the entry would then edit),
 * while the same alert decided twice stays one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { diffRead } from '../../src/scheduler/diff.js';
import { createNotifier } from '../../src/alerts/notifier.js';
import { alertKey } from '../../src/alerts/idempotency.js';
import type { Notifier } from '../../src/scheduler/port.js';
import type { OutboxPort, OutboxSendOptions } from '../../src/outbox/port.js';
import type { Store } from '../../src/store/port.js';
import { DICTS, opp } from '../scheduler/fixtures.js';
import { addUser, tempStore } from '../scheduler/harness.js';


/** Sends once per key, as the cluster's queue does (a fixed job id per key); edits likewise. */
class DedupOutbox implements OutboxPort {
  delivered: { chatId: number; messageId: number; key: string | undefined }[] = [];
  edits: { chatId: number; messageId: number; key: string | undefined }[] = [];
  private readonly answers = new Map<string, number | undefined>();
  private readonly editAnswers = new Set<string>();
  private id = 700;
  async send(chatId: number, _text: string, opts?: OutboxSendOptions): Promise<number | undefined> {
    const key = opts?.idempotencyKey;
    if (key !== undefined && this.answers.has(key)) return this.answers.get(key);
    const messageId = this.id++;
    this.delivered.push({ chatId, messageId, key });
    if (key !== undefined) this.answers.set(key, messageId);
    return messageId;
  }
  async edit(chatId: number, messageId: number, _text: string, opts?: { idempotencyKey?: string }): Promise<boolean> {
    const key = opts?.idempotencyKey;
    if (key !== undefined && this.editAnswers.has(key)) return true;
    if (key !== undefined) this.editAnswers.add(key);
    this.edits.push({ chatId, messageId, key });
    return true;
  }
}

const SUB = { userId: 1, service: 'arbs_prematch' as const, subKey: '1:arbs_prematch' };
const CREATED = Date.UTC(2026, 0, 3, 9, 59);
const item = (odds = [2.1, 2.05]) => ({ ...opp('a', odds), createdAt: CREATED });

let clock: ManualClock;
let store: Store;
let cleanup: () => Promise<void>;
let outbox: DedupOutbox;
let notifier: Notifier;

beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0));
  ({ store, cleanup } = await tempStore(clock));
  outbox = new DedupOutbox();
  notifier = createNotifier({ store, client: { cachedDictionaries: () => DICTS }, outbox, logger: silentLogger, clock });
  addUser(store, 1, ['arbs_prematch']);
});
afterEach(async () => {
  await cleanup();
});

function read(items: ReturnType<typeof opp>[], known = new Map(), previousReadAt?: number) {
  const user = store.getUser(1)!;
  const result = diffRead({
    now: clock.now(),
    chatId: user.alertChatId ?? user.chatId,
    items,
    entries: store.alerts.entries(SUB.subKey),
    known,
    ...(previousReadAt !== undefined ? { previousReadAt } : {}),
  });
  for (const [id, e] of result.upserts) store.alerts.set(SUB.subKey, id, e);
  for (const id of result.deletes) store.alerts.delete(SUB.subKey, id);
  notifier.notify(SUB, user, result.events);
  return result;
}

describe('alert idempotency keys', () => {
  it('a changed destination gets its own alert, and its edits go to that message, not to a message of the old chat', async () => {
    read([item()]);
    await notifier.idle();
    expect(outbox.delivered).toEqual([expect.objectContaining({ chatId: 1, messageId: 700 })]);

    // Alerts now go to a group; the item's alert state starts again for it.
    store.updateUser(1, (d) => {
      d.alertChatId = -100;
    });
    store.alerts.delete(SUB.subKey, 'a');
    await clock.advance(5_000);
    const again = read([item()]);
    await notifier.idle();
    expect(outbox.delivered.at(-1)).toMatchObject({ chatId: -100, messageId: 701 });
    expect(store.alerts.get(SUB.subKey, 'a')).toMatchObject({ chatId: -100, messageId: 701 });

    await clock.advance(15_000);
    read([item([2.3, 2.05])], again.known, clock.now() - 15_000);
    await notifier.idle();
    expect(outbox.edits).toEqual([expect.objectContaining({ chatId: -100, messageId: 701 })]);
  });

  it('a filter deleted and made again alerts its live items again instead of meeting the old keys', async () => {
    read([item()]);
    await notifier.idle();
    store.updateUser(1, (d) => {
      delete d.filters.arbs_prematch;
    });
    store.alerts.deleteSubscription(SUB.subKey);
    await clock.advance(60_000);
    addUser(store, 1, ['arbs_prematch']);
    store.updateUser(1, (d) => {
      const f = d.filters.arbs_prematch;
      if (f) f.savedAt = clock.now();
    });
    read([item()]);
    await notifier.idle();
    expect(outbox.delivered).toHaveLength(2);
    expect(store.alerts.get(SUB.subKey, 'a')?.messageId).toBe(701);
  });

  it('the same alert decided twice (a second worker without the first one\'s state) is still one', async () => {
    read([item()]);
    await notifier.idle();
    store.alerts.delete(SUB.subKey, 'a');
    await clock.advance(5_000);
    read([item()]);
    await notifier.idle();
    expect(outbox.delivered).toHaveLength(1);
    expect(store.alerts.get(SUB.subKey, 'a')?.messageId).toBe(700);
  });

  it('every key starts with the user id, as the cluster\'s job guard reads it', () => {
    const key = alertKey({ subKey: '42:arbs_live', itemId: 'x', item: { createdAt: 1 }, entry: { chatId: -5, firstSeenAt: 2 }, again: false, filterSavedAt: 3 });
    expect(key.startsWith('42:arbs_live:x:')).toBe(true);
    expect(key).not.toBe(alertKey({ subKey: '42:arbs_live', itemId: 'x', item: { createdAt: 1 }, entry: { chatId: -6, firstSeenAt: 2 }, again: false, filterSavedAt: 3 }));
  });
});
