/**
 * The notifier on a temporary store with an outbox that records what it is given: one read at a
 * time goes through the real diff, as the scheduler would hand it over.
 */
import { afterEach, beforeEach } from 'vitest';
import { createNotifier } from '../../src/alerts/notifier.js';
import { ManualClock } from '../../src/clock.js';
import type { OutboxPort } from '../../src/outbox/port.js';
import { diffRead } from '../../src/scheduler/diff.js';
import type { Dictionaries } from '../../src/service/dictionaries-model.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import type { Store } from '../../src/store/port.js';
import { tempStore } from '../scheduler/harness.js';
import { captureLogs } from '../support/logs.js';

export class RecordingOutbox implements OutboxPort {
  sent: string[] = [];
  edits: string[] = [];
  async send(_chatId: number, text: string): Promise<number | undefined> {
    this.sent.push(text);
    return this.sent.length;
  }
  async edit(_chatId: number, _messageId: number, text: string): Promise<boolean> {
    this.edits.push(text);
    return true;
  }
}

export const SUB = { userId: 1, service: 'arbs_prematch' as const, subKey: '1:arbs_prematch' };

export interface NotifierRig {
  clock: ManualClock;
  store: Store;
  outbox: RecordingOutbox;
  /** One read of `items` for user 1's arbs_prematch: diffed, stored, notified, settled. */
  read(items: Opportunity[]): Promise<void>;
}

/** A fresh rig before each test of the file (closed after it), with `dicts` as the dictionaries. */
export function useNotifierRig(dicts: Dictionaries): NotifierRig {
  let cleanup: () => Promise<void> = async () => undefined;
  const rig = {} as NotifierRig;
  beforeEach(async () => {
    rig.clock = new ManualClock(Date.UTC(2026, 0, 3, 10, 0));
    const made = await tempStore(rig.clock);
    rig.store = made.store;
    cleanup = made.cleanup;
    rig.outbox = new RecordingOutbox();
    const notifier = createNotifier({ store: rig.store, client: { cachedDictionaries: () => dicts }, outbox: rig.outbox, logger: captureLogs().logger, clock: rig.clock });
    rig.read = async (items) => {
      const user = rig.store.getUser(1)!;
      const result = diffRead({ now: rig.clock.now(), chatId: user.chatId, items, entries: rig.store.alerts.entries(SUB.subKey), known: new Map() });
      for (const [id, e] of result.upserts) rig.store.alerts.set(SUB.subKey, id, e);
      notifier.notify(SUB, user, result.events);
      await notifier.idle();
    };
  });
  afterEach(async () => {
    await cleanup();
  });
  return rig;
}
