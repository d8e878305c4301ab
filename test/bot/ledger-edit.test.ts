/**
 * The ledger forgives mistakes, end to end through the fake Bot API (#13, #24): /add in one line
 * and guided; every settle answered with ↩️ Undo that works for the window on the injected clock
 * and not after; a settled position reopened from /positions; ✏️ a leg's odds, stake and
 * bookmaker (bad input quoted, nothing changed); 🗑 asked first; a quarter-line arb settled half
 * won / half lost from /open with the hand-computed P&L; /pnl and the CSV following each change;
 * a lay leg in /open said once with its liability; forged and other users' buttons change nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeLedgerEdit } from '../../src/bot/callback-data/index.js';
import { readLedgerCsv } from '../../src/ledger/csv.js';
import { UNDO_WINDOW_MS } from '../../src/ledger/edits.js';
import { makeLeg, positionSchema } from '../../src/ledger/model.js';
import { translator } from '../../src/locales/i18n.js';
import { positionLines } from '../../src/bot/ui/ledger-text.js';
import { ALICE, BORIS, createHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  await h.connect();
  h.store.updateUser(ALICE.id, (u) => {
    u.bankroll = 1000;
    u.books = { '9': { commission: 2 } };
  });
});
afterEach(async () => {
  await h.close();
});

const book = async () => (await h.store.ledger.book(ALICE.id)).positions;
const csvPnl = async (): Promise<string[][]> => {
  await h.say(ALICE, '/export all');
  const rows = readLedgerCsv(Buffer.from(h.last(ALICE.id).media!.bytes).toString('utf8'));
  return rows.map((r) => [r.position_id, r.status, r.pnl]);
};
/** What /pnl answers now (its text; the chart that follows is a photo). */
const pnlLine = async (): Promise<string> => {
  const before = h.sent(ALICE.id).length;
  await h.say(ALICE, '/pnl');
  return h.sent(ALICE.id).slice(before).map((m) => m.text).join('\n');
};

describe('/add', () => {
  it('records one line with several legs, the market in words turned into its code, the bookmaker matched', async () => {
    await h.say(ALICE, '/add pinnacle over 2.25 2.10 100; sbobet lay TO(2.25) 2.00 100 "Team A — Team B"');
    expect(h.last(ALICE.id).text).toContain('✅ Recorded as position #1');
    const [p] = await book();
    expect(p!.event).toBe('Team A — Team B');
    expect(p!.kind).toBe('arbs');
    expect(p!.legs.map((l) => [l.bookmaker, l.market, l.odds, l.stake, l.lay, l.commission])).toEqual([
      ['Pinnacle', 'TO(2.25)', 2.1, 100, false, 0],
      ['Sbobet', 'TO(2.25)', 2, 100, true, 0.02],
    ]);
  });

  it('in Russian: market words become the Russian codes, a lay said as «против»', async () => {
    await h.connect(BORIS);
    await h.say(BORIS, '/add pinnacle тб 2.25 2,10 100; sbobet против ТБ(2.25) 2.00 100 «Спартак — Зенит»');
    expect(h.last(BORIS.id).text).toContain('Записано как позиция #1');
    const [p] = (await h.store.ledger.book(BORIS.id)).positions;
    expect(p!.event).toBe('Спартак — Зенит');
    expect(p!.legs.map((l) => [l.market, l.lay])).toEqual([['ТБ(2.25)', false], ['ТБ(2.25)', true]]);
    await h.say(BORIS, '/open');
    expect(h.labels(h.last(BORIS.id))).toContain('#1 1) ½ проигрыш · 2) ½ выигрыш');
  });

  it('quotes what was wrong and records nothing (no position number used)', async () => {
    await h.say(ALICE, '/add pinnacle W1 0.90 100');
    expect(h.last(ALICE.id).text).toContain('“0.90” are not odds');
    await h.say(ALICE, '/add nosuchbook W1 2.10 100');
    expect(h.last(ALICE.id).text).toContain('I know no bookmaker “nosuchbook”');
    await h.say(ALICE, '/add pinnacle W1 2.10 100; pinnacle W2 2.0');
    expect(h.last(ALICE.id).text).toContain('Leg 2: “pinnacle W2 2.0” is not a leg I can read');
    expect(await book()).toEqual([]);
    await h.say(ALICE, '/add pinnacle W1 2.10 100');
    expect((await book())[0]!.id).toBe('1');
  });

  it('guided: bookmaker, market, odds and stake, back or lay, event; a bad answer is quoted and asked again', async () => {
    await h.say(ALICE, '/add');
    expect(h.last(ALICE.id).text).toContain('Which bookmaker?');
    await h.say(ALICE, 'zzz');
    expect(h.last(ALICE.id).text).toContain('I know no bookmaker “zzz”');
    expect(h.last(ALICE.id).text).toContain('send the same name again');
    await h.say(ALICE, 'marathon');
    expect(h.last(ALICE.id).text).toContain('At Marathonbet. Which market?');
    await h.say(ALICE, 'handicap 1 -0.25');
    await h.say(ALICE, 'two 100');
    expect(h.last(ALICE.id).text).toContain('“two 100” are not odds');
    await h.say(ALICE, '1,95');
    expect(h.last(ALICE.id).text).toContain('“1,95” has no stake I can read');
    await h.say(ALICE, '1,95 100');
    const side = h.last(ALICE.id);
    expect(h.labels(side)).toEqual(['Back', 'Lay']);
    await h.press(ALICE, side, h.button(side, 'Back'));
    await h.say(ALICE, 'Arsenal — Chelsea');
    expect(h.last(ALICE.id).text).toContain('✅ Recorded as position #1');
    const [p] = await book();
    expect(p!.legs.map((l) => [l.bookmaker, l.market, l.odds, l.stake, l.lay])).toEqual([['Marathonbet', 'AH1(-0.25)', 1.95, 100, false]]);
    expect(p!.event).toBe('Arsenal — Chelsea');
  });

  it('guided: a bookmaker the service does not list is recorded as typed once the name is sent twice', async () => {
    await h.say(ALICE, '/add');
    await h.say(ALICE, 'Corner Bookie');
    expect(h.last(ALICE.id).text).toContain('I know no bookmaker “Corner Bookie”');
    await h.say(ALICE, 'Corner Bookie');
    expect(h.last(ALICE.id).text).toContain('At Corner Bookie. Which market?');
    for (const answer of ['1', '2.5 40']) await h.say(ALICE, answer);
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), 'Back'));
    await h.say(ALICE, '-');
    expect((await book())[0]!.legs.map((l) => [l.bookmaker, l.market, l.odds, l.stake])).toEqual([['Corner Bookie', '1', 2.5, 40]]);
  });
});

describe('settle, undo, reopen', () => {
  it('a quarter-line single settles half won from /open, and ↩️ Undo takes it back within the window', async () => {
    await h.say(ALICE, '/add pinnacle AH1(+0.25) 1.95 100');
    await h.say(ALICE, '/open');
    const list = h.last(ALICE.id);
    // AH1(+0.25): a home win wins, a draw half wins, an away win loses; void if the match is called off.
    expect(h.labels(list)).toEqual(['#1 Won', '#1 ½ won', '#1 Lost', '#1 Void', '✏️ #1', '🗑 #1']);
    await h.press(ALICE, list, h.button(list, '#1 ½ won'));
    // ½ × 100 × 0.95.
    expect(h.callbackText()).toBe('Position #1 settled: +47.50.');
    const answer = h.last(ALICE.id);
    expect(answer.text).toContain('Position #1 settled: +47.50.');
    expect(await pnlLine()).toContain('P&amp;L <b>+47.50</b>');

    await h.clock.advance(UNDO_WINDOW_MS - 60_000);
    const undo = h.button(answer, 'Undo');
    await h.press(ALICE, answer, undo);
    expect(h.callbackText()).toBe('↩️ Undone: position #1 is as it was before.');
    expect((await book())[0]!.settledAt).toBeNull();
    expect(await pnlLine()).toContain('Nothing settled');
    // Undone once: the same button again (the message lost it; an old copy kept it) changes nothing.
    await h.press(ALICE, await h.plant(ALICE.id, 'old', [['↩️ Undo', undo]]), undo);
    expect(h.callbackText()).toContain('already undone');
  });

  it('after the window the undo is refused and says how to correct it instead; /positions reopens it', async () => {
    await h.say(ALICE, '/add pinnacle W1 2.10 100 "A — B"');
    await h.say(ALICE, '/open');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), '#1 Won'));
    const answer = h.last(ALICE.id);
    await h.clock.advance(UNDO_WINDOW_MS + 1_000);
    await h.press(ALICE, answer, h.button(answer, 'Undo'));
    expect(h.callbackText()).toContain('Too late to undo (more than 15 min)');
    expect((await book())[0]!.settledAt).not.toBeNull();
    expect(await csvPnl()).toEqual([['1', 'won', '110.00']]);

    await h.say(ALICE, '/positions');
    const list = h.last(ALICE.id);
    expect(list.text).toContain('settled');
    expect(list.text).toContain('+110.00');
    await h.press(ALICE, list, h.button(list, '✏️ #1'));
    const card = h.last(ALICE.id);
    await h.press(ALICE, card, h.button(card, 'Reopen'));
    expect(h.last(ALICE.id).text).toContain('Position #1 is open again');
    expect((await book())[0]!.legs[0]!.result).toBeNull();
    expect(await csvPnl()).toEqual([['1', 'pending', '']]);
  });

  it('an arb on AH ±0.25 settles “1) ½ lost · 2) ½ won” with its P&L after commission', async () => {
    await h.say(ALICE, '/add pinnacle AH1(-0.25) 2.10 500; sbobet AH2(+0.25) 2.04 520');
    await h.say(ALICE, '/open');
    const list = h.last(ALICE.id);
    expect(h.labels(list)).toContain('#1 1) ½ lost · 2) ½ won');
    await h.press(ALICE, list, h.button(list, '#1 1) ½ lost · 2) ½ won'));
    // −250 + ½ × 520 × 1.04 × (1 − 2 %) = −250 + 264.99 = +14.99.
    expect(h.callbackText()).toBe('Position #1 settled: +14.99.');
    expect(await csvPnl()).toEqual([
      ['1', 'half_lost', '-250.00'],
      ['1', 'half_won', '264.99'],
    ]);
  });
});

describe('✏️ Edit and 🗑 Delete', () => {
  it('corrects a settled leg’s odds, stake and bookmaker; /pnl and the CSV follow; the change can be undone', async () => {
    await h.say(ALICE, '/add pinnacle W1 2.10 100');
    await h.say(ALICE, '/open');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), '#1 Won'));
    await h.say(ALICE, '/positions all');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), '✏️ #1'));
    const card = h.last(ALICE.id);
    await h.press(ALICE, card, h.button(card, 'Leg 1'));
    expect(h.last(ALICE.id).text).toContain('is now odds <b>2.10</b>, stake <b>100</b> at Pinnacle');
    await h.say(ALICE, '2.2 x');
    expect(h.last(ALICE.id).text).toContain('“2.2 x” is not odds and a stake');
    await h.say(ALICE, '2.20 150 nosuch');
    expect(h.last(ALICE.id).text).toContain('I know no bookmaker “nosuch”');
    expect((await book())[0]!.legs[0]!.odds).toBe(2.1);
    await h.press(ALICE, card, h.button(card, 'Leg 1'));
    await h.say(ALICE, '2.20 150 sbobet');
    const saved = h.last(ALICE.id);
    // 150 × 1.20 = 180 less 2 % commission at Sbobet: 176.40.
    expect(saved.text).toContain('leg 1: now 2.20 × 150 at Sbobet');
    expect(saved.text).toContain('+176.40');
    expect(await csvPnl()).toEqual([['1', 'won', '176.40']]);
    await h.press(ALICE, saved, h.button(saved, 'Undo'));
    expect(await csvPnl()).toEqual([['1', 'won', '110.00']]);
  });

  /** Records `add` (position #1), then opens /positions → ✏️ #1 → 🏁 Result: the editor's message. */
  async function resultEditorOf(add: string) {
    await h.say(ALICE, add);
    await h.say(ALICE, '/positions');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), '✏️ #1'));
    const card = h.last(ALICE.id);
    await h.press(ALICE, card, h.button(card, 'Result'));
    return h.sent(ALICE.id).find((m) => m.message_id === card.message_id)!;
  }

  it('sets each leg’s result in the editor, a dead heat for the user’s own market', async () => {
    const editor = await resultEditorOf('/add pinnacle top scorer 6.00 50');
    expect(h.labels(editor)).toContain('1) dead heat 1/2');
    await h.press(ALICE, editor, h.button(editor, '1) dead heat 1/2'));
    // 50 × ½ × 6 − 50.
    expect(h.callbackText()).toBe('Position #1 settled: +100.00.');
    expect(await csvPnl()).toEqual([['1', 'dead_heat', '100.00']]);
    // /open offers it too, for a single on a market in the user's words; W1 has no halves nor dead heat.
    await h.say(ALICE, '/add pinnacle outright 4.00 20');
    await h.say(ALICE, '/add pinnacle W1 2.00 20');
    await h.say(ALICE, '/open');
    const list = h.last(ALICE.id);
    expect(h.labels(list).filter((l) => l.startsWith('#3'))).toEqual(['#3 Won', '#3 Lost', '#3 Void']);
    await h.press(ALICE, list, h.button(list, '#2 dead heat 1/3'));
    // 20 × (⅓ × 4 − 1) = 6.67.
    expect(h.callbackText()).toBe('Position #2 settled: +6.67.');
  });

  it('a dead heat for more places than one: 3 tied for 2 places pays ⅔ of the stake at the full odds', async () => {
    const editor = await resultEditorOf('/add pinnacle top 3 finish 4.00 30');
    expect(h.labels(editor)).toEqual(expect.arrayContaining(['1) dead heat 2/3', '1) dead heat 3/4', '1) dead heat 1/4']));
    await h.press(ALICE, editor, h.button(editor, '1) dead heat 2/3'));
    // 30 × (⅔ × 4 − 1) = 50.00.
    expect(h.callbackText()).toBe('Position #1 settled: +50.00.');
    expect(await csvPnl()).toEqual([['1', 'dead_heat', '50.00']]);
  });

  it('🗑 asks first; “Keep it” keeps, yes deletes it from /open, /pnl and the CSV', async () => {
    await h.say(ALICE, '/add pinnacle W1 2.10 100');
    await h.say(ALICE, '/add pinnacle W2 1.80 100');
    await h.say(ALICE, '/open');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), '🗑 #1'));
    let ask = h.last(ALICE.id);
    expect(ask.text).toContain('Delete position #1?');
    await h.press(ALICE, ask, h.button(ask, 'Keep it'));
    expect(await book()).toHaveLength(2);
    await h.say(ALICE, '/open');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), '🗑 #1'));
    ask = h.last(ALICE.id);
    await h.press(ALICE, ask, h.button(ask, 'Yes, delete #1'));
    expect(h.callbackText()).toBe('🗑 Position #1 deleted.');
    expect((await book()).map((p) => p.id)).toEqual(['2']);
    await h.say(ALICE, '/open');
    expect(h.last(ALICE.id).text).not.toContain('#1');
    expect(await csvPnl()).toEqual([['2', 'pending', '']]);
  });
});

describe('#24: a lay leg in /open', () => {
  it('from an alert whose market says Lay: "lay" once, and the liability', () => {
    const p = positionSchema.parse({
      id: '7',
      kind: 'arbs',
      service: 'arbs_prematch',
      itemId: 'x',
      eventId: 'e',
      placedAt: 0,
      legs: [
        makeLeg({ outcome: 0, bookmaker: 'Pinnacle', market: 'TO(197.5)', odds: 2.7, stake: 370 }),
        makeLeg({ outcome: 1, bookmaker: 'Betfair Exchange', market: 'Lay TO(197.5)', odds: 1.58, stake: 645.03, commission: 0.05, lay: true }),
      ],
    });
    const lines = positionLines(p, 'en', 'UTC', translator('en'));
    expect(lines[2]).toBe('2) Betfair Exchange · Lay TO(197.5) · 1.58 × 645.03 · liability 374.12');
  });

  it('says lay once and shows its liability', async () => {
    await h.say(ALICE, '/add sbobet lay TO(2.5) 1.58 645.03');
    await h.say(ALICE, '/open');
    const text = h.last(ALICE.id).text;
    expect(text).toContain('1) Sbobet · Lay TO(2.5) · 1.58 × 645.03 · liability 374.12');
    expect(text.match(/lay/gi)).toHaveLength(1);
  });
});

describe('forged and other users’ buttons', () => {
  it('change nothing in anyone’s ledger', async () => {
    await h.say(ALICE, '/add pinnacle W1 2.10 100');
    await h.say(ALICE, '/open');
    await h.press(ALICE, h.last(ALICE.id), h.button(h.last(ALICE.id), '#1 Won'));
    const before = JSON.stringify(await book());
    await h.connect(BORIS);
    for (const data of [
      encodeLedgerEdit({ type: 'undo', positionId: '1', n: 1 }),
      encodeLedgerEdit({ type: 'deleteYes', positionId: '1' }),
      encodeLedgerEdit({ type: 'reopen', positionId: '1' }),
      encodeLedgerEdit({ type: 'legResult', positionId: '1', leg: 0, code: 'l' }),
      encodeLedgerEdit({ type: 'legValues', positionId: '1', leg: 0 }),
    ]) {
      const forged = await h.plant(BORIS.id, 'x', [['x', data]]);
      await h.press(BORIS, forged, data);
      expect(h.callbackText()).toContain('нет такой позиции');
    }
    // Alice's own forged data: a made-up undo number, a result her market does not allow, junk.
    for (const [data, answer] of [
      [encodeLedgerEdit({ type: 'undo', positionId: '1', n: 7 }), 'nothing to undo'],
      [encodeLedgerEdit({ type: 'legResult', positionId: '1', leg: 0, code: 'h' }), 'cannot be changed'],
      ['le:t:1:0:z', 'no longer active'],
      ['le:y:1;drop', 'no longer active'],
    ] as const) {
      const forged = await h.plant(ALICE.id, 'x', [['x', data]]);
      await h.press(ALICE, forged, data);
      expect(h.callbackText()).toContain(answer);
    }
    expect(JSON.stringify(await book())).toBe(before);
  });
});
