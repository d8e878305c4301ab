/**
 * `/settings currency EUR` beside every stake the bot prints (issue 30 item 7), not only in the
 * ledger: an alert and its edits (the notifier reads it from the user record it already holds), a
 * card, the ✏️ flow's prompts, a recorded position (which keeps the currency it was placed in),
 * /book's caps; none set: amounts bare, as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import { useNotifierRig } from '../alerts/notifier-rig.js';
import { DICTS, opp } from '../scheduler/fixtures.js';
import { addUser } from '../scheduler/harness.js';
import { makeItem } from './fakes.js';
import { ALICE, createHarness, type Harness } from './harness.js';

describe('the alert path', () => {
  const rig = useNotifierRig(DICTS);

  async function readAll(reads: Opportunity[][]): Promise<void> {
    for (const items of reads) {
      await rig.read(items);
      await rig.clock.advance(20_000);
    }
  }

  it('an alert and its edit print the currency after each stake and the worst case', async () => {
    addUser(rig.store, 1, ['arbs_prematch']);
    rig.store.updateUser(1, (u) => {
      u.bankroll = 1000;
      u.currency = 'EUR';
    });
    await readAll([[opp('a', [2.1, 2.05], 3.73)], [opp('a', [2.12, 2.05], 4.2)]]);
    expect(rig.outbox.sent).toHaveLength(1);
    for (const text of [rig.outbox.sent[0]!, rig.outbox.edits.at(-1)!]) {
      const stakes = [...text.matchAll(/(\d+) EUR/g)].map((m) => Number(m[1]));
      expect(stakes.length).toBeGreaterThanOrEqual(2);
      expect(text).not.toMatch(/ \d+ @/);
    }
  });

  it('without a currency the same alert prints bare amounts', async () => {
    addUser(rig.store, 1, ['arbs_prematch']);
    rig.store.updateUser(1, (u) => {
      u.bankroll = 1000;
    });
    await readAll([[opp('a', [2.1, 2.05], 3.73)]]);
    expect(rig.outbox.sent[0]).not.toContain('EUR');
    expect(rig.outbox.sent[0]).toMatch(/\b495\b|\b494\b|\b49\d\b/);
  });
});

describe('the chat', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });
  const placed = (itemId: string) => encodeAlertAction({ type: 'placed', service: 'arbs_prematch', itemId })!;

  async function setUp(): Promise<void> {
    h = await createHarness();
    await h.connect();
    h.store.updateUser(ALICE.id, (u) => {
      u.bankroll = 1000;
      u.roundingStep = 5;
    });
    h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' }), makeItem({ id: 'a2' })]);
  }

  it('/settings currency keeps the code on the user record too, and every card, prompt and cap shows it', async () => {
    await setUp();
    await h.say(ALICE, '/settings currency eur');
    expect(h.store.getUser(ALICE.id)!.currency).toBe('EUR');
    expect((await h.store.ledger.book(ALICE.id)).settings.currency).toBe('EUR');

    await h.say(ALICE, '/item a1 arbs_prematch');
    const card = h.sent(ALICE.id).findLast((m) => h.labels(m).includes('✅ Placed'))!;
    expect(card.text).toContain('495 EUR');
    expect(card.text).toContain('505 EUR');

    // ✏️ Placed differently: the prompt offers the stake with its currency; the position keeps it.
    const differently = encodeAlertAction({ type: 'placedDifferently', service: 'arbs_prematch', itemId: 'a2' });
    const alert = await h.plant(ALICE.id, 'alert', [['✏️ Placed differently', differently!]]);
    await h.press(ALICE, alert, differently!);
    const prompt = h.last(ALICE.id);
    expect(prompt.text).toContain('stake <b>495 EUR</b>');
    // The example to type stays bare: "2.10 495 EUR" would read EUR as a bookmaker.
    expect(prompt.text).toContain('<code>2.10 495</code>');

    await h.say(ALICE, '/book Pinnacle max=300');
    expect(h.last(ALICE.id).text).toContain('300 EUR');
  });

  it('a position keeps the currency it was placed in after the setting changes', async () => {
    await setUp();
    await h.say(ALICE, '/settings currency USD');
    const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a1')]]);
    await h.press(ALICE, alert, placed('a1'));
    await h.say(ALICE, '/settings currency EUR');
    const book = await h.store.ledger.book(ALICE.id);
    expect(book.positions[0]!.currency).toBe('USD');
    await h.say(ALICE, '/open');
    expect(h.last(ALICE.id).text).toContain('495 USD');
    expect(h.last(ALICE.id).text).not.toContain('EUR');
  });

  it('none clears it everywhere: the card prints bare amounts again', async () => {
    await setUp();
    await h.say(ALICE, '/settings currency EUR');
    await h.say(ALICE, '/settings currency none');
    expect(h.store.getUser(ALICE.id)!.currency).toBeNull();
    await h.say(ALICE, '/item a1 arbs_prematch');
    const card = h.sent(ALICE.id).findLast((m) => h.labels(m).includes('✅ Placed'))!;
    expect(card.text).toContain('495');
    expect(card.text).not.toContain('EUR');
  });
});
