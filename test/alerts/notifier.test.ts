import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { diffRead, type DiffEvent } from '../../src/scheduler/diff.js';
import { createNotifier, LATE_AFTER_MS, type AlertButtons } from '../../src/alerts/notifier.js';
import type { Notifier } from '../../src/scheduler/port.js';
import type { OutboxPort, OutboxSendOptions } from '../../src/outbox/port.js';
import type { Store } from '../../src/store/port.js';
import { DICTS, opp } from '../scheduler/fixtures.js';
import { makeLeg, positionSchema } from '../../src/ledger/model.js';
import { addUser, tempStore } from '../scheduler/harness.js';


/** What the notifier sends: its buttons are always callbacks (the port also takes links). */
type SentOptions = (Omit<OutboxSendOptions, 'buttons'> & { buttons?: AlertButtons }) | undefined;
interface Sent { chatId: number; text: string; opts: SentOptions }
interface Edited { chatId: number; messageId: number; text: string; buttons: AlertButtons | undefined; gone: boolean | undefined; key: string | undefined }

class FakeOutbox implements OutboxPort {
  sent: Sent[] = [];
  edited: Edited[] = [];
  editResult = true;
  private id = 500;
  async send(chatId: number, text: string, opts?: SentOptions): Promise<number | undefined> {
    this.sent.push({ chatId, text, opts });
    return opts?.holdUntil !== undefined ? undefined : this.id++;
  }
  async edit(chatId: number, messageId: number, text: string, opts?: { buttons?: AlertButtons; gone?: boolean; idempotencyKey?: string }): Promise<boolean> {
    this.edited.push({ chatId, messageId, text, buttons: opts?.buttons, gone: opts?.gone, key: opts?.idempotencyKey });
    return this.editResult;
  }
}

const SUB = { userId: 1, service: 'arbs_prematch' as const, subKey: '1:arbs_prematch' };

let clock: ManualClock;
let store: Store;
let cleanup: () => Promise<void>;
let outbox: FakeOutbox;
let notifier: Notifier;

beforeEach(async () => {
  clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0));
  ({ store, cleanup } = await tempStore(clock));
  outbox = new FakeOutbox();
  notifier = createNotifier({ store, client: { cachedDictionaries: () => DICTS }, outbox, logger: silentLogger, clock });
});
afterEach(async () => {
  await cleanup();
});

/** Runs the diff as the scheduler does, stores its entries and hands its events to the notifier. */
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

describe('notifier', () => {
  it('sends a new alert with names, buttons and a digest line, and keeps its message id', async () => {
    addUser(store, 1, ['arbs_prematch']);
    read([opp('a')]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(1);
    const [sent] = outbox.sent;
    expect(sent!.chatId).toBe(1);
    expect(sent!.text).toContain('Pinnacle');
    expect(sent!.text).toContain('1XBet');
    expect(sent!.text).toContain('Player A');
    expect(sent!.opts).toMatchObject({ kind: 'alert', lang: 'en' });
    expect(sent!.opts?.digestLine).toContain('Player A');
    expect(sent!.opts?.holdUntil).toBeUndefined();
    expect(sent!.opts?.buttons?.flat().map((b) => b.callbackData)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^a:ev:/), expect.stringMatching(/^a:stk:/), expect.stringMatching(/^a:mute:/), 'a:snz:0']),
    );
    expect(store.alerts.get(SUB.subKey, 'a')?.messageId).toBe(500);
    expect(store.getUser(1)?.status.arbs_prematch?.lastAlertAt).toBe(clock.now());
    expect(notifier.stats()).toMatchObject({ alerts: 1, alertsLastMinute: 1, failures: 0 });
  });

  it('edits the alert in place when the item moves and when it goes', async () => {
    addUser(store, 1, ['arbs_prematch']);
    const first = read([opp('a', [2.1, 2.05], 2.35)]);
    await notifier.idle();
    await clock.advance(15_000);
    const second = read([opp('a', [2.2, 2.05], 2.5)], first.known, clock.now() - 15_000);
    await notifier.idle();
    expect(outbox.edited).toHaveLength(1);
    expect(outbox.edited[0]).toMatchObject({ chatId: 1, messageId: 500 });
    expect(outbox.edited[0]!.text).toMatch(/[▲▼]/);
    // A move waits behind gone marks in the chat's budget; a gone mark says so.
    expect(outbox.edited[0]!.gone).toBe(false);
    await clock.advance(15_000);
    read([], second.known, clock.now() - 15_000);
    await notifier.idle();
    expect(outbox.edited).toHaveLength(2);
    expect(outbox.edited[1]!.text).toContain('Gone after 30 s');
    expect(outbox.edited[1]!.gone).toBe(true);
    expect(notifier.stats().edits).toBe(2);
  });

  it('keeps the ledger’s "✅ Placed" line on every later edit of a placed alert, gone included', async () => {
    addUser(store, 1, ['arbs_prematch']);
    const first = read([opp('a', [2.1, 2.05], 2.35)]);
    await notifier.idle();
    const leg = (outcome: number, odds: number, stake: number) => makeLeg({ outcome, bookmaker: 'B', odds, stake });
    await store.ledger.put(1, positionSchema.parse({ id: '1', kind: 'arbs', service: 'arbs_prematch', itemId: 'a', eventId: 'e', placedAt: 0, legs: [leg(0, 2.1, 495), leg(1, 2.05, 505)] }));
    await clock.advance(15_000);
    const second = read([opp('a', [2.2, 2.05], 2.5)], first.known, clock.now() - 15_000);
    await notifier.idle();
    expect(outbox.edited[0]!.text).toContain('✅ Placed 495 / 505 · worst case +35.25');
    await clock.advance(15_000);
    read([], second.known, clock.now() - 15_000);
    await notifier.idle();
    expect(outbox.edited[1]!.text).toContain('✅ Placed 495 / 505 · worst case +35.25');
  });

  it('sends alerts to the chosen alert chat and edits them there', async () => {
    addUser(store, 1, ['arbs_prematch'], { alertChatId: -100123 });
    read([opp('a')]);
    await notifier.idle();
    expect(outbox.sent[0]!.chatId).toBe(-100123);
    expect(store.alerts.get(SUB.subKey, 'a')?.chatId).toBe(-100123);
  });

  it('skips new alerts of a muted event or a snoozed filter', async () => {
    addUser(store, 1, ['arbs_prematch']);
    store.updateUser(1, (u) => {
      u.mutedEvents['e-a'] = clock.now() + 60_000;
    });
    read([opp('a'), opp('b')]);
    await notifier.idle();
    expect(outbox.sent.map((s) => s.opts?.digestLine)).toHaveLength(1);
    store.updateUser(1, (u) => {
      u.snoozedUntil.arbs_prematch = clock.now() + 60_000;
    });
    read([opp('a'), opp('b'), opp('c')]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(1);
    expect(notifier.stats().skipped).toBe(2);
    // Expired mute and snooze: alerts flow again.
    await clock.advance(61_000);
    read([opp('a'), opp('b'), opp('c'), opp('d')]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(2);
  });

  it('skips new alerts of a muted league or bookmaker, until the mute ends', async () => {
    addUser(store, 1, ['arbs_prematch']);
    const other = (id: string) => ({ ...opp(id), event: { ...opp(id).event, league: 'WTA Doha' } });
    store.updateUser(1, (u) => {
      u.mutes['l:6:atp doha'] = { until: clock.now() + 60_000, label: 'Tennis · ATP Doha' };
    });
    read([opp('a'), other('b')]);
    await notifier.idle();
    expect(outbox.sent.map((s) => s.text.includes('WTA Doha'))).toEqual([true]);
    store.updateUser(1, (u) => {
      u.mutes['b:21'] = { until: clock.now() + 60_000, label: '1XBet' };
    });
    read([opp('a'), other('b'), other('c')]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(1);
    await clock.advance(61_000);
    // Items first seen while muted stay unalerted (as with event mutes); a new one alerts again.
    read([opp('a'), other('b'), other('c'), opp('d')]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(2);
    expect(outbox.sent[1]!.text).toContain('ATP Doha');
  });

  it('holds alerts during quiet hours until they end', async () => {
    // 10:00 UTC is 13:00 in Moscow: quiet from 12:00 to 14:30 local.
    addUser(store, 1, ['arbs_prematch'], { quietHours: { from: '12:00', to: '14:30' } });
    store.updateUser(1, (u) => {
      u.timeZone = 'Europe/Moscow';
    });
    read([opp('a')]);
    await notifier.idle();
    expect(outbox.sent[0]!.opts?.holdUntil).toBe(Date.UTC(2026, 0, 3, 11, 30));
    expect(notifier.stats().held).toBe(1);
    // Folded into the summary: no message id, so no edits later.
    expect(store.alerts.get(SUB.subKey, 'a')?.messageId).toBeNull();
    // #12: the summary lists it by id with a button that opens it; /status's "Last alert" does not count it (it was not sent).
    expect(outbox.sent[0]!.opts?.heldItem).toEqual({ id: 'a', userId: 1, service: 'arbs_prematch', openData: 'a:op:0:a' });
    expect(store.getUser(1)?.status.arbs_prematch?.lastAlertAt ?? null).toBeNull();
  });

  it('stops editing a message Telegram no longer takes', async () => {
    addUser(store, 1, ['arbs_prematch']);
    const first = read([opp('a')]);
    await notifier.idle();
    outbox.editResult = false;
    await clock.advance(20_000);
    read([opp('a', [3, 2.05])], first.known, clock.now() - 20_000);
    await notifier.idle();
    expect(store.alerts.get(SUB.subKey, 'a')?.messageId).toBeNull();
  });

  it('says in the user’s language why a subscription paused and what to do', async () => {
    const en = addUser(store, 1, ['arbs_prematch']);
    const ru = addUser(store, 2, ['arbs_live'], { lang: 'ru' });
    notifier.notice(en, 'forbidden', 'arbs_prematch');
    notifier.notice(ru, 'auth', 'arbs_live');
    await notifier.idle();
    expect(outbox.sent[0]).toMatchObject({ chatId: 1, opts: { kind: 'info', lang: 'en' } });
    expect(outbox.sent[0]!.text).toContain('no access to Arbs · prematch');
    expect(outbox.sent[0]!.text).toContain('/resume arbs_prematch');
    expect(outbox.sent[1]!.text).toContain('Вилки · лайв');
    expect(outbox.sent[1]!.text).toContain('/connect');
    expect(notifier.stats().notices).toBe(2);
  });

  it('names each alert the same wherever it is decided, and each edit as a new version', async () => {
    addUser(store, 1, ['arbs_prematch']);
    const created = Date.UTC(2026, 0, 3, 9, 58);
    const item = (odds = [2.1, 2.05]) => ({ ...opp('a', odds), createdAt: created });
    const first = read([item()]);
    await notifier.idle();
    const key = `1:arbs_prematch:a:chat:1:new:${created}:filter:0`;
    expect(outbox.sent[0]!.opts?.idempotencyKey).toBe(key);
    // A second worker that saw the item without the first one's alert state decides the same alert
    // later, on its own clock: the same key, so the cluster's queue sends it once.
    store.alerts.delete(SUB.subKey, 'a');
    await clock.advance(5_000);
    read([item()]);
    await notifier.idle();
    expect(outbox.sent[1]!.opts?.idempotencyKey).toBe(key);
    // Edits: one key per version of the message.
    await clock.advance(15_000);
    const moved = read([item([2.3, 2.05])], first.known, clock.now() - 15_000);
    await notifier.idle();
    await clock.advance(15_000);
    read([], moved.known, clock.now() - 15_000);
    await notifier.idle();
    const editKeys = outbox.edited.map((e) => e.key);
    expect(editKeys).toHaveLength(2);
    expect(editKeys[0]).toMatch(/^1:arbs_prematch:a:chat:1:msg:\d+:moved:/);
    expect(editKeys[1]).toMatch(/^1:arbs_prematch:a:chat:1:msg:\d+:gone:/);
    // The move raised the profit by more than a point: a loud re-alert replying to the alert, named by the profit it counts from.
    expect(outbox.sent[2]!.opts?.idempotencyKey).toMatch(/^1:arbs_prematch:a:chat:1:msg:\d+:loud:\d+:[\d.-]+$/);
    // Back after the return window: a repeat alert, with a key of its own (not swallowed by the first).
    await clock.advance(31 * 60_000);
    read([item()], new Map(), clock.now() - 60_000);
    await notifier.idle();
    const again = outbox.sent[3]!.opts?.idempotencyKey;
    expect(again).toMatch(/^1:arbs_prematch:a:chat:1:again:\d+$/);
    // The item was two minutes old when first seen: late news; back again, it is news now.
    expect(outbox.sent.map((s) => s.opts?.late)).toEqual([true, true, undefined, undefined]);
  });

  it('marks an alert late when its item was first seen long after it appeared, so fresh ones go first', async () => {
    addUser(store, 1, ['arbs_prematch']);
    const now = clock.now();
    read([
      { ...opp('fresh'), createdAt: now - 3_000 },
      { ...opp('edge'), createdAt: now - LATE_AFTER_MS },
      { ...opp('backlog'), createdAt: now - LATE_AFTER_MS - 1 },
      { ...opp('untimed'), createdAt: undefined },
      // A service clock ahead of ours: the item is fresh, not "from the future".
      { ...opp('ahead'), createdAt: now + 60_000 },
    ]);
    await notifier.idle();
    expect(outbox.sent).toHaveLength(5);
    expect(outbox.sent.filter((s) => s.opts?.late === true)).toHaveLength(1);
    expect(outbox.sent.find((s) => s.opts?.late === true)?.opts?.idempotencyKey).toMatch(/:backlog:chat:1:new:/);
  });

  it('counts a failing send instead of throwing', async () => {
    addUser(store, 1, ['arbs_prematch']);
    outbox.send = () => Promise.reject(new Error('Telegram down'));
    const events: DiffEvent[] = read([opp('a')]).events;
    await notifier.idle();
    expect(events).toHaveLength(1);
    expect(notifier.stats().failures).toBe(1);
    expect(store.alerts.get(SUB.subKey, 'a')?.messageId).toBeNull();
  });
});
