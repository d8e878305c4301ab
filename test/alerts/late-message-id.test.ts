/**
 * A cluster's worker stops waiting for the front's answer after a minute (remote-outbox.ts): behind a
 * flood at Telegram's pace, or for a worker killed meanwhile, an alert's message id comes after its
 * call resolved. The alert must still be edited as its item moves and marked when it goes: its
 * entry keeps the send's key, and the id is read from the send's claim (`messageIdOf`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNotifier } from '../../src/alerts/notifier.js';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import type { OutboxEditOptions, OutboxPort, OutboxSendOptions } from '../../src/outbox/port.js';
import { diffRead, EDIT_MIN_INTERVAL_MS } from '../../src/scheduler/diff.js';
import { LOOKUP_MIN_INTERVAL_MS } from '../../src/scheduler/message-lookup.js';
import type { Notifier } from '../../src/scheduler/port.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import type { Store } from '../../src/store/port.js';
import { DICTS, opp } from '../scheduler/fixtures.js';
import { addUser, tempStore } from '../scheduler/harness.js';

/** An outbox whose sends' calls give up waiting (`onNoAnswer`), their ids known only to `messageIdOf`, as behind a long backlog; or answer at once. */
class LateOutbox implements OutboxPort {
  /** Set: sends are answered at once with ids from here. */
  promptIds: number | undefined;
  sends: { text: string; key: string | undefined }[] = [];
  edits: { messageId: number; text: string; gone: boolean | undefined }[] = [];
  lookups: string[] = [];
  /** What each key's claim says. */
  claims = new Map<string, number | 'none'>();
  editResult: boolean | undefined = true;
  async send(_chatId: number, text: string, opts?: OutboxSendOptions): Promise<number | undefined> {
    this.sends.push({ text, key: opts?.idempotencyKey });
    if (this.promptIds !== undefined) return this.promptIds++;
    opts?.onNoAnswer?.();
    return undefined;
  }
  async edit(_chatId: number, messageId: number, text: string, opts?: OutboxEditOptions): Promise<boolean | undefined> {
    this.edits.push({ messageId, text, gone: opts?.gone });
    return this.editResult;
  }
  async messageIdOf(key: string): Promise<number | 'none' | undefined> {
    this.lookups.push(key);
    return this.claims.get(key);
  }
}

const SUB = { userId: 1, service: 'arbs_prematch' as const, subKey: '1:arbs_prematch' };

let clock: ManualClock;
let store: Store;
let cleanup: () => Promise<void>;
let outbox: LateOutbox;
let notifier: Notifier;
let known = new Map<string, Opportunity>();
let previousReadAt: number | undefined;

beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0));
  ({ store, cleanup } = await tempStore(clock));
  addUser(store, 1, ['arbs_prematch']);
  outbox = new LateOutbox();
  notifier = createNotifier({ store, client: { cachedDictionaries: () => DICTS }, outbox, logger: silentLogger, clock });
  known = new Map();
  previousReadAt = undefined;
});
afterEach(async () => {
  await cleanup();
});

/** One read, as the scheduler makes it (the last known forms and the previous read carried over), settled. */
async function read(items: Opportunity[]) {
  const user = store.getUser(1)!;
  const result = diffRead({ now: clock.now(), chatId: user.chatId, items, entries: store.alerts.entries(SUB.subKey), known, ...(previousReadAt !== undefined && { previousReadAt }) });
  for (const [id, e] of result.upserts) store.alerts.set(SUB.subKey, id, e);
  for (const id of result.deletes) store.alerts.delete(SUB.subKey, id);
  known = result.known;
  previousReadAt = clock.now();
  notifier.notify(SUB, user, result.events);
  await notifier.idle();
  return result.events.map((e) => e.type);
}

const entry = () => store.alerts.get(SUB.subKey, 'a')!;

describe('an alert whose message id came after its call', () => {
  it('keeps its send’s key, finds the message when the item moves, and edits it at the next move', async () => {
    expect(await read([opp('a')])).toEqual(['new']);
    const key = outbox.sends[0]!.key!;
    expect(entry()).toMatchObject({ messageId: null, sentKey: key });

    // Moved before the front sent it: nothing to edit yet, asked again later.
    clock.advance(LOOKUP_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.3, 2.05])])).toEqual(['lookup']);
    expect(outbox.lookups).toEqual([key]);
    expect(entry()).toMatchObject({ messageId: null, sentKey: key });
    // Asked no more often than every LOOKUP_MIN_INTERVAL_MS.
    clock.advance(LOOKUP_MIN_INTERVAL_MS - 1_000);
    expect(await read([opp('a', [2.3, 2.05])])).toEqual([]);

    // Sent now: the lookup finds its id, and the next read edits that message.
    outbox.claims.set(key, 812);
    clock.advance(1_000);
    expect(await read([opp('a', [2.3, 2.05])])).toEqual(['lookup']);
    expect(entry().messageId).toBe(812);
    expect(entry().sentKey).toBeUndefined();
    clock.advance(EDIT_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.3, 2.05])])).toEqual(['moved']);
    expect(outbox.edits).toEqual([expect.objectContaining({ messageId: 812 })]);
    expect(outbox.edits[0]!.text).toContain('2.30');
  });

  it('marks it gone once found, though the item went while its send waited', async () => {
    await read([opp('a')]);
    const key = outbox.sends[0]!.key!;
    clock.advance(LOOKUP_MIN_INTERVAL_MS);
    // Gone, with the message not found yet: the item's last form is kept to draw it later.
    expect(await read([])).toEqual(['lookup']);
    expect(known.has('a')).toBe(true);
    outbox.claims.set(key, 813);
    clock.advance(LOOKUP_MIN_INTERVAL_MS);
    expect(await read([])).toEqual(['lookup']);
    expect(entry().messageId).toBe(813);
    clock.advance(EDIT_MIN_INTERVAL_MS);
    expect(await read([])).toEqual(['gone']);
    expect(outbox.edits).toEqual([expect.objectContaining({ messageId: 813, gone: true })]);
    expect(entry().goneShown).toBe(true);
  });

  it('stops asking when the send went out as no message of its own (folded into a digest, held)', async () => {
    await read([opp('a')]);
    outbox.claims.set(outbox.sends[0]!.key!, 'none');
    clock.advance(LOOKUP_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.3, 2.05])])).toEqual(['lookup']);
    expect(entry().sentKey).toBeUndefined();
    expect(entry().messageId).toBeNull();
    clock.advance(LOOKUP_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.5, 2.05])])).toEqual([]);
    expect(outbox.lookups).toHaveLength(1);
  });

  it('keeps editing a message whose edit got no answer in time, and stops once one failed', async () => {
    await read([opp('a')]);
    outbox.claims.set(outbox.sends[0]!.key!, 814);
    clock.advance(LOOKUP_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.3, 2.05])])).toEqual(['lookup']);
    outbox.editResult = undefined;
    clock.advance(EDIT_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.5, 2.05])])).toEqual(['moved']);
    expect(entry().messageId).toBe(814);
    outbox.editResult = false;
    clock.advance(EDIT_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.7, 2.05])])).toEqual(['moved']);
    expect(entry().messageId).toBeNull();
    clock.advance(EDIT_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.9, 2.05])])).toEqual([]);
    expect(outbox.edits.map((e) => e.messageId)).toEqual([814, 814]);
  });

  it('keeps no key for a send answered in time, and looks nothing up', async () => {
    outbox.promptIds = 700;
    await read([opp('a')]);
    expect(entry()).toMatchObject({ messageId: 700 });
    expect(entry().sentKey).toBeUndefined();
    clock.advance(EDIT_MIN_INTERVAL_MS);
    expect(await read([opp('a', [2.3, 2.05])])).toEqual(['moved']);
    expect(outbox.lookups).toEqual([]);
  });

  it('keeps no key where the outbox answers every send itself (one process)', async () => {
    const plain: OutboxPort = { send: async () => 900, edit: async () => true };
    const own = createNotifier({ store, client: { cachedDictionaries: () => DICTS }, outbox: plain, logger: silentLogger, clock });
    const user = store.getUser(1)!;
    const result = diffRead({ now: clock.now(), chatId: user.chatId, items: [opp('b')], entries: [], known: new Map() });
    for (const [id, e] of result.upserts) store.alerts.set(SUB.subKey, id, e);
    own.notify(SUB, user, result.events);
    await own.idle();
    expect(store.alerts.get(SUB.subKey, 'b')).toMatchObject({ messageId: 900 });
    expect(store.alerts.get(SUB.subKey, 'b')!.sentKey).toBeUndefined();
  });
});
