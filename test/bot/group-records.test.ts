/**
 * Audit 3, L1: a /books, ledger or Leg limited button pressed in a group never creates or changes
 * a user record (the group would become the presser's "private chat"), and a record that names a
 * group as its chat (written before this check) does not make every message there the user's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { ownsAlert } from '../../src/bot/features/alert-actions.js';
import { ALICE, BORIS, createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const GROUP = -100_555;

describe('buttons of private kinds pressed in a group', () => {
  it('/books, ledger and Leg limited buttons are refused there and create no record', async () => {
    h.fake.setChat({ id: GROUP, type: 'supergroup', title: 'Room', botIsAdmin: true, adminIds: [ALICE.id] });
    for (const d of ['bk:s:7:l', 'bk:r:7', 'l:o:0', 'll:m:0']) {
      const forged = await h.plant(GROUP, 'forged', [['x', d]]);
      await h.press(BORIS, forged, d);
      expect(h.callbackText(), d).toBe('Эти кнопки принадлежат другому пользователю.');
    }
    expect(h.store.getUser(BORIS.id)).toBeUndefined();
  });

  it('a record whose chat is a group does not own the alerts of that group', async () => {
    await h.connect(ALICE);
    h.store.updateUser(BORIS.id, () => undefined, { chatId: GROUP, lang: 'ru' });
    const action = { type: 'mute', service: 'arbs_prematch', eventId: 'ev-1' } as const;
    expect(encodeAlertAction(action)).toBeDefined();
    expect(ownsAlert({ store: h.store }, BORIS.id, GROUP, 42, action)).toBe(false);
    // The user's own private chat still holds only their alerts.
    expect(ownsAlert({ store: h.store }, ALICE.id, ALICE.id, 7, action)).toBe(true);
  });
});
