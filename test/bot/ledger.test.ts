/**
 * The ledger in the chat, end to end through the fake Bot API: ✅ Placed from an alert (the alert
 * then says so), a second tap refused, ✏️ with a refused leg (break-even odds and hedge stake),
 * /open settling with one tap, /pnl's figures and chart (a PNG photo), /export's CSV read back to
 * the same totals; forged buttons, bad periods and bad leg input change nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { encodeLedgerAction } from '../../src/bot/callback-data/index.js';
import { readLedgerCsv } from '../../src/ledger/csv.js';
import { summarize } from '../../src/ledger/summary.js';
import { makeItem } from './fakes.js';
import { ALICE, BORIS, createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const placed = (itemId: string, service: 'arbs_prematch' | 'valuebets_prematch' = 'arbs_prematch') => encodeAlertAction({ type: 'placed', service, itemId })!;
const differently = (itemId: string) => encodeAlertAction({ type: 'placedDifferently', service: 'arbs_prematch', itemId })!;

async function setUp(): Promise<void> {
  await h.connect();
  h.store.updateUser(ALICE.id, (u) => {
    u.bankroll = 1000;
    u.roundingStep = 5;
  });
  h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' }), makeItem({ id: 'a2' }), makeItem({ id: 'v1', service: 'valuebets_prematch' })]);
}

describe('✅ Placed from an alert', () => {
  it('records the stakes the alert shows, marks the alert, and refuses a second tap', async () => {
    await setUp();
    const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a1')]]);
    await h.press(ALICE, alert, placed('a1'));
    expect(h.callbackText()).toBe('✅ Recorded as position #1. Settle it in /open when the event is over.');
    const book = await h.store.ledger.book(ALICE.id);
    expect(book.positions).toHaveLength(1);
    expect(book.positions[0]!.legs.map((l) => [l.odds, l.stake])).toEqual([[2.1, 495], [2.05, 505]]);
    expect(book.settings.startBank).toBe(1000);
    const marked = h.sent(ALICE.id).find((m) => m.message_id === alert.message_id)!;
    expect(marked.text).toContain('✅ Placed 495 / 505 · worst case +35.25 · #1');
    // The re-drawn alert's ✅ names what it prints now; a second tap on it still finds position #1.
    await h.press(ALICE, marked, h.button(marked, '✅ Placed'));
    expect(h.callbackText()).toBe('Already recorded as position #1: see /open.');
    expect((await h.store.ledger.book(ALICE.id)).positions).toHaveLength(1);
  });

  it('says so when the item is no longer held, and records nothing', async () => {
    await setUp();
    const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('gone')]]);
    await h.press(ALICE, alert, placed('gone'));
    expect(h.callbackText()).toContain('no longer in the latest data');
    expect((await h.store.ledger.book(ALICE.id)).positions).toEqual([]);
  });

  it('someone else’s alert in a private chat is not theirs to place', async () => {
    await setUp();
    await h.connect(BORIS);
    const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a1')]]);
    await h.press(BORIS, alert, placed('a1'));
    expect((await h.store.ledger.book(BORIS.id)).positions).toEqual([]);
    expect((await h.store.ledger.book(ALICE.id)).positions).toEqual([]);
  });
});

describe('✅ Placed from a card', () => {
  it('/item shows the alert\'s buttons under the card (a digest line leads there), and ✅ Placed records the card\'s stakes', async () => {
    await setUp();
    await h.say(ALICE, '/item a1 arbs_prematch');
    const card = h.sent(ALICE.id).findLast((m) => h.labels(m).includes('✅ Placed'));
    expect(card?.text).toContain('495');
    await h.press(ALICE, card!, h.button(card!, '✅ Placed'));
    const book = await h.store.ledger.book(ALICE.id);
    expect(book.positions[0]!.legs.map((l) => [l.odds, l.stake])).toEqual([[2.1, 495], [2.05, 505]]);
  });

  it('a card for another amount has no ✅ Placed (it would record the bankroll\'s stakes, not the ones shown)', async () => {
    await setUp();
    await h.say(ALICE, '/item a1 arbs_prematch');
    const card = h.sent(ALICE.id).findLast((m) => h.labels(m).includes('✅ Placed'))!;
    await h.press(ALICE, card, h.button(card, 'Other amount'));
    await h.say(ALICE, '250');
    const other = h.last(ALICE.id);
    expect(other.text).toContain('Stakes for 250');
    expect(h.labels(other)).not.toContain('✅ Placed');
  });
});

describe('✏️ Placed differently', () => {
  it('asks leg by leg; a refused leg gets the hedge’s break-even odds and stake; the hedge can be placed', async () => {
    await setUp();
    const alert = await h.plant(ALICE.id, 'alert', [['✏️', differently('a2')]]);
    await h.press(ALICE, alert, differently('a2'));
    let prompt = h.last(ALICE.id);
    expect(prompt.text).toContain('leg 1 of 2');
    // Bad input changes nothing and asks again.
    await h.say(ALICE, 'two point one');
    expect(h.last(ALICE.id).text).toContain('Nothing was changed');
    await h.say(ALICE, '2,08 495');
    expect(h.sent(ALICE.id).some((m) => m.text === 'Leg 1: 2.08 × 495 saved.')).toBe(true);
    prompt = h.last(ALICE.id);
    expect(prompt.text).toContain('leg 2 of 2');
    await h.press(ALICE, prompt, h.button(prompt, 'Refused'));
    const refusal = h.sent(ALICE.id).find((m) => m.text.startsWith('❌ Leg 2'))!;
    // Placed 495 @ 2.08 (returns 1029.60): break-even 1 + 495 / 534.6 = 1.9259; at 2.05 the hedge is
    // 502.25, the least that returns 1029.60 (502.24 × 2.05 = 1029.59, a cent short): worst +32.35.
    expect(refusal.text).toContain('at least <b>1.926</b>');
    expect(refusal.text).toContain('hedge stake is <b>502.25</b> (worst case then +32.35)');
    let p = (await h.store.ledger.book(ALICE.id)).positions[0]!;
    expect(p.legs.map((l) => l.status)).toEqual(['placed', 'refused', 'open']);
    await h.press(ALICE, refusal, h.button(refusal, 'Hedge placed'));
    await h.say(ALICE, '2.00 515 Pinnacle');
    p = (await h.store.ledger.book(ALICE.id)).positions[0]!;
    expect(p.legs.map((l) => [l.status, l.bookmaker, l.odds, l.stake])).toEqual([
      ['placed', p.legs[0]!.bookmaker, 2.08, 495],
      ['refused', p.legs[1]!.bookmaker, 2.05, 505],
      ['placed', 'Pinnacle', 2, 515],
    ]);
    expect(h.last(ALICE.id).text).toContain('worst case +19.60');
  });
});

describe('✏️ Placed differently: the hedge’s break-even is one the user can take (newcomer #14)', () => {
  it('leg 1 at 2.90 × 340, leg 2 refused: at least 1.527 (1 + 340/646 = 1.52632; at 1.526 the hedge loses 0.14)', async () => {
    await setUp();
    const alert = await h.plant(ALICE.id, 'alert', [['✏️', differently('a2')]]);
    await h.press(ALICE, alert, differently('a2'));
    await h.say(ALICE, '2.90 340');
    const prompt = h.last(ALICE.id);
    expect(prompt.text).toContain('leg 2 of 2');
    await h.press(ALICE, prompt, h.button(prompt, 'Refused'));
    const refusal = h.sent(ALICE.id).find((m) => m.text.startsWith('❌ Leg 2'))!;
    expect(refusal.text).toContain('at least <b>1.527</b>');
    // at the refused 2.05: 480.98 × 2.05 = 986.01 covers the 986 of leg 1; 986 − 340 − 480.98 = +165.02
    expect(refusal.text).toContain('hedge stake is <b>480.98</b> (worst case then +165.02)');
    // /open says the same while the hedge is open
    await h.say(ALICE, '/open');
    expect(h.sent(ALICE.id).some((m) => m.text.includes('hedge of leg 2 still open: break-even odds 1.527'))).toBe(true);
  });
});

describe('/open, /pnl and /export', () => {
  it('settles with one tap, and the figures, chart and CSV agree', async () => {
    await setUp();
    for (const [id, service] of [['a1', 'arbs_prematch'], ['v1', 'valuebets_prematch']] as const) {
      const alert = await h.plant(ALICE.id, 'alert', [['✅', placed(id, service)]]);
      await h.press(ALICE, alert, placed(id, service));
    }
    await h.say(ALICE, '/open');
    let list = h.last(ALICE.id);
    expect(list.text).toContain('Unsettled positions</b>: 2');
    // The valuebet's closing line so far: its odds when placed, two hours before the start.
    expect(list.text).toContain('closing line: 2.10, last seen 120 min before the start');
    await h.press(ALICE, list, h.button(list, '#1 1) won'));
    expect(h.callbackText()).toBe('Position #1 settled: +39.50.');
    list = h.sent(ALICE.id).find((m) => m.message_id === list.message_id)!;
    expect(list.text).toContain('Unsettled positions</b>: 1');
    await h.press(ALICE, list, h.button(list, '#2 Lost'));
    // A second tap on a stale button settles nothing twice.
    const stale = await h.plant(ALICE.id, 'old /open', [['#2 Won', encodeLedgerAction({ type: 'settle', positionId: '2', result: 'w' })]]);
    await h.press(ALICE, stale, encodeLedgerAction({ type: 'settle', positionId: '2', result: 'w' }));
    expect(h.callbackText()).toBe('Position #2 is already settled.');

    await h.say(ALICE, '/pnl');
    const texts = h.sent(ALICE.id).map((m) => m.text);
    const pnl = texts.find((t) => t.includes('P&amp;L ·'))!;
    // 39.50 on the arb, −10 on the valuebet (quarter Kelly of 1000 at 2.10 with 4 % overvalue).
    expect(pnl).toContain('P&amp;L <b>+29.50</b> on turnover 1010');
    expect(pnl).toContain('Yield (P&amp;L ÷ turnover): <b>+2.92%</b>');
    expect(pnl).toContain('ROI on bank (P&amp;L ÷ starting bank 1000): +2.95%');
    expect(pnl).toContain('Arbs: expected +35.25 (worst case as placed) · realised +39.50 (1)');
    const photo = h.last(ALICE.id);
    expect(photo.media?.kind).toBe('photo');
    expect(Buffer.from(photo.media!.bytes).subarray(1, 4).toString()).toBe('PNG');

    await h.say(ALICE, '/export all');
    const doc = h.last(ALICE.id);
    expect(doc.media?.kind).toBe('document');
    expect(doc.media?.fileName).toBe('ledger-all.csv');
    const rows = readLedgerCsv(Buffer.from(doc.media!.bytes).toString('utf8'));
    expect(rows.map((r) => [r.position_id, r.status, r.pnl])).toEqual([
      ['1', 'won', '544.50'],
      ['1', 'lost', '-505.00'],
      ['2', 'lost', '-10.00'],
    ]);
    const s = summarize(await h.store.ledger.book(ALICE.id), -Infinity, Infinity);
    const total = rows.reduce((sum, r) => sum + Number(r.pnl), 0);
    const turnover = rows.filter((r) => r.status !== 'pending').reduce((sum, r) => sum + Number(r.liability), 0);
    expect(total).toBeCloseTo(s.totals.pnl, 2);
    expect(turnover).toBeCloseTo(s.totals.turnover, 2);
  });

  it('answers a bad period with the usage and an empty ledger plainly', async () => {
    await setUp();
    await h.say(ALICE, '/pnl yesterday');
    expect(h.last(ALICE.id).text).toContain('/pnl with a period');
    await h.say(ALICE, '/export 2026-13');
    expect(h.last(ALICE.id).text).toContain('/export with a period');
    await h.say(ALICE, '/pnl');
    expect(h.last(ALICE.id).text).toContain('Nothing settled');
    await h.say(ALICE, '/open');
    expect(h.last(ALICE.id).text).toContain('No unsettled positions');
  });

  it('a forged settle button reaches only the presser’s own ledger', async () => {
    await setUp();
    const alert = await h.plant(ALICE.id, 'alert', [['✅', placed('a1')]]);
    await h.press(ALICE, alert, placed('a1'));
    await h.connect(BORIS);
    const forged = await h.plant(BORIS.id, 'x', [['x', encodeLedgerAction({ type: 'settle', positionId: '1', result: 'o0' })]]);
    await h.press(BORIS, forged, encodeLedgerAction({ type: 'settle', positionId: '1', result: 'o0' }));
    expect(h.callbackText()).toContain('нет такой позиции');
    expect((await h.store.ledger.book(ALICE.id)).positions[0]!.settledAt).toBeNull();
    const junk = await h.plant(BORIS.id, 'y', [['y', 'l:s:1:o99']]);
    await h.press(BORIS, junk, 'l:s:1:o99');
    expect(h.callbackText()).toBe('Эта кнопка больше не действует.');
  });

  it('/clv picks the de-vig method of closing lines', async () => {
    await setUp();
    await h.say(ALICE, '/clv');
    const menu = h.last(ALICE.id);
    expect(menu.text).toContain('<b>Multiplicative</b>');
    await h.press(ALICE, menu, h.button(menu, 'Shin'));
    expect(h.callbackText()).toBe('CLV now uses the Shin method.');
    expect((await h.store.ledger.book(ALICE.id)).settings.devig).toBe('shin');
  });

  it('/forget deletes the ledger', async () => {
    await setUp();
    const alert = await h.plant(ALICE.id, 'alert', [['✅', placed('a1')]]);
    await h.press(ALICE, alert, placed('a1'));
    await h.say(ALICE, '/forget');
    const confirm = h.last(ALICE.id);
    await h.press(ALICE, confirm, h.button(confirm, 'Yes, delete'));
    expect((await h.store.ledger.book(ALICE.id)).positions).toEqual([]);
    expect(await h.dataFiles()).not.toContain('"positions"');
  });
});
