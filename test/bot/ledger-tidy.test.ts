/**
 * The tidy ledger end to end through the fake Bot API: when Telegram refuses the /pnl chart or the
 * /export file the user is told exactly that (and gets the CSV in parts or as text), never the
 * generic failure nor an "update failed" log; /open writes dates as the alerts do; a user currency
 * shown in /open, /pnl and the CSV (bad codes quoted back, nothing changed); every arb leg's closing
 * odds, their time and CLV in /pnl and the CSV; /archive hands over a gzip CSV and only then moves
 * the positions out; a full ledger refuses a new position with how to make room; the report cap.
 */
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeAlertAction } from '../../src/alerts/callbacks.js';
import { createCloseRecorder } from '../../src/alerts/closing-lines.js';
import { CAP_RULES } from '../../src/bot/caps.js';
import { readLedgerCsv } from '../../src/ledger/csv.js';
import { makeItem } from './fakes.js';
import { ALICE, createHarness, type Harness, type HarnessOptions } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

const placed = (itemId: string) => encodeAlertAction({ type: 'placed', service: 'arbs_prematch', itemId })!;

async function setUp(opts: HarnessOptions = {}): Promise<void> {
  h = await createHarness(opts);
  await h.connect();
  h.store.updateUser(ALICE.id, (u) => {
    u.bankroll = 1000;
    u.roundingStep = 5;
  });
  h.scheduler.latest.set(ALICE.id, [makeItem({ id: 'a1' }), makeItem({ id: 'a2' }), makeItem({ id: 'a3' })]);
}

/** ✅ Placed on the alert of `id`, then settled "1) won" in /open. */
async function placeAndSettle(id: string): Promise<void> {
  const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed(id)]]);
  await h.press(ALICE, alert, placed(id));
  await h.say(ALICE, '/open');
  const list = h.last(ALICE.id);
  await h.press(ALICE, list, h.button(list, '1) won'));
}

const texts = () => h.sent(ALICE.id).map((m) => m.text);

describe('Telegram refuses an upload (D2, D3)', () => {
  it('/pnl: the figures arrive and the user reads that the chart was drawn but refused', async () => {
    await setUp();
    await placeAndSettle('a1');
    h.fake.failNext({ method: 'sendPhoto', count: 5, code: 400, description: 'Bad Request: API method not supported' });
    await h.say(ALICE, '/pnl');
    expect(texts().some((t) => t.includes('P&amp;L <b>+39.50</b>'))).toBe(true);
    const last = h.last(ALICE.id).text;
    expect(last).toContain('The chart was drawn, but Telegram refused the picture (Bad Request: API method not supported)');
    expect(last).not.toContain('could not be drawn');
    expect(h.logs.join('\n')).not.toContain('update failed');
  });

  it('/export: the CSV is offered in parts or as text, never "Something went wrong"', async () => {
    await setUp();
    await placeAndSettle('a1');
    h.fake.failNext({ method: 'sendDocument', count: 1, code: 400, description: 'Bad Request: file uploads are not supported' });
    await h.say(ALICE, '/export all');
    const refused = h.last(ALICE.id).text;
    expect(refused).toContain('Your CSV is ready (2 rows), but Telegram refused the file (Bad Request: file uploads are not supported)');
    expect(refused).toContain('<code>/export all parts</code>');
    expect(refused).toContain('<code>/export all text</code>');
    expect(texts().join('\n')).not.toContain('Something went wrong');
    expect(h.logs.join('\n')).not.toContain('update failed');

    await h.say(ALICE, '/export all text');
    const text = h.last(ALICE.id).text;
    expect(text).toContain('as text, 1 of 1');
    const csv = text.slice(text.indexOf('<pre>') + 5, text.indexOf('</pre>')).replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>');
    expect(readLedgerCsv(csv).map((r) => r.pnl)).toEqual(['544.50', '-505.00']);

    await h.say(ALICE, '/export all parts');
    const part = h.last(ALICE.id);
    expect(part.media?.fileName).toBe('ledger-all-part1.csv');
    expect(readLedgerCsv(Buffer.from(part.media!.bytes).toString('utf8'))).toHaveLength(2);
  });

  it('/export with a word it does not know answers the usage, which names parts and text', async () => {
    await setUp();
    await placeAndSettle('a1');
    await h.say(ALICE, '/export all pdf');
    expect(h.last(ALICE.id).text).toContain('Add <code>parts</code> for smaller files or <code>text</code> for messages');
    expect(h.last(ALICE.id).media).toBeUndefined();
  });

  it('/export: a refused part says so too', async () => {
    await setUp();
    await placeAndSettle('a1');
    h.fake.failNext({ method: 'sendDocument', count: 5, code: 403, description: 'Forbidden: files are off' });
    await h.say(ALICE, '/export all parts');
    expect(h.last(ALICE.id).text).toContain('refused the file (Forbidden: files are off)');
  });
});

describe('dates, currency and CLV in the ledger', () => {
  it('/open writes the start as the alerts do (D5), and the currency beside every stake', async () => {
    await setUp();
    await h.say(ALICE, '/settings currency eur');
    expect(h.last(ALICE.id).text).toContain('Currency: EUR');
    const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a1')]]);
    await h.press(ALICE, alert, placed('a1'));
    await h.say(ALICE, '/open');
    const open = h.last(ALICE.id).text;
    expect(open).toContain('Sat 3 Jan 12:00');
    expect(open).not.toMatch(/\b(AM|PM)\b/);
    expect(open).toContain('× 495 EUR');
    expect(open).toContain('↳ +35.25 EUR');
  });

  it('a bad currency is quoted back and changes nothing', async () => {
    await setUp();
    await h.say(ALICE, '/settings currency euros');
    expect(h.last(ALICE.id).text).toContain('“euros” is not a currency code');
    expect((await h.store.ledger.book(ALICE.id)).settings.currency).toBeNull();
    await h.say(ALICE, '/settings currency RUB');
    await h.say(ALICE, '/settings currency none');
    expect((await h.store.ledger.book(ALICE.id)).settings.currency).toBeNull();
  });

  it('every arb leg gets its closing odds, when they were read, and CLV: in /pnl and the CSV', async () => {
    await setUp();
    await h.say(ALICE, '/settings currency EUR');
    const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a1')]]);
    await h.press(ALICE, alert, placed('a1'));
    // Reads before the start: the odds move on both legs; the last read before the start is the close.
    const record = createCloseRecorder(h.store.ledger);
    const item = makeItem({ id: 'a1' });
    const moved = (a: number, b: number) => ({ ...item, legs: [{ ...item.legs[0]!, odds: a }, { ...item.legs[1]!, odds: b }] });
    const start = item.event.startsAt!;
    record({ userId: ALICE.id, service: 'arbs_prematch' }, [moved(2.0, 2.1)], start - 600_000);
    record({ userId: ALICE.id, service: 'arbs_prematch' }, [moved(1.95, 2.2)], start - 60_000);
    record({ userId: ALICE.id, service: 'arbs_prematch' }, [moved(1.5, 3.0)], start + 60_000);
    await h.say(ALICE, '/open');
    const list = h.last(ALICE.id);
    await h.press(ALICE, list, h.button(list, '1) won'));
    await h.say(ALICE, '/pnl');
    const pnl = texts().find((t) => t.includes('P&amp;L ·'))!;
    // 2.10 vs 1.95: +7.69 %; 2.05 vs 2.20: −6.82 %; mean +0.44 %, weighted by 495 / 505 +0.33 %.
    expect(pnl).toContain('Arbs’ and middles’ legs CLV (odds taken vs each leg’s close): mean +0.44% · stake-weighted +0.36% · beat the close 50% (2)');
    expect(pnl).toContain('P&amp;L <b>+39.50 EUR</b> on turnover 1000 EUR');
    await h.say(ALICE, '/export all');
    const rows = readLedgerCsv(Buffer.from(h.last(ALICE.id).media!.bytes).toString('utf8'));
    expect(rows.map((r) => [r.closing_odds, r.closing_at, r.clv_pct, r.currency, r.selection, r.devig_method])).toEqual([
      ['1.95', '2026-01-03T11:59:00Z', '7.69', 'EUR', 'home win', 'price'],
      ['2.20', '2026-01-03T11:59:00Z', '-6.82', 'EUR', 'away win', 'price'],
    ]);
  });
});

describe('position numbers stay contiguous', () => {
  const ids = async () => (await h.store.ledger.book(ALICE.id)).positions.map((p) => p.id).sort();
  const deleteVia = async (id: string) => {
    await h.say(ALICE, '/positions');
    const list = h.last(ALICE.id);
    await h.press(ALICE, list, h.button(list, `🗑 #${id}`));
    const ask = h.last(ALICE.id);
    await h.press(ALICE, ask, h.button(ask, `Yes, delete #${id}`));
  };
  it('🗑 on the newest position gives its number back; one in the middle keeps its hole', async () => {
    await setUp();
    for (const id of ['a1', 'a2']) {
      const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed(id)]]);
      await h.press(ALICE, alert, placed(id));
    }
    expect(await ids()).toEqual(['1', '2']);
    await deleteVia('2');
    expect(await ids()).toEqual(['1']);
    const again = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a3')]]);
    await h.press(ALICE, again, placed('a3'));
    expect(await ids()).toEqual(['1', '2']);
    await deleteVia('1');
    const third = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a1')]]);
    await h.press(ALICE, third, placed('a1'));
    expect(await ids()).toEqual(['2', '3']);
  });
});

describe('bounds', () => {
  it('/archive sends the settled positions as a gzip CSV, then moves them out; unsettled ones stay', async () => {
    await setUp();
    await placeAndSettle('a1');
    const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a2')]]);
    await h.press(ALICE, alert, placed('a2'));
    await h.say(ALICE, '/archive');
    expect(h.last(ALICE.id).text).toContain('Send /archive with a period');
    await h.say(ALICE, '/archive all');
    const file = h.last(ALICE.id);
    expect(file.media?.fileName).toBe('ledger-archive-all.csv.gz');
    expect(file.text).toContain('Archived 1 settled position');
    const rows = readLedgerCsv(gunzipSync(Buffer.from(file.media!.bytes)).toString('utf8'));
    expect(rows.map((r) => [r.position_id, r.pnl])).toEqual([['1', '544.50'], ['1', '-505.00']]);
    const book = await h.store.ledger.book(ALICE.id);
    expect(book.positions.map((p) => p.id)).toEqual(['2']);
    await h.say(ALICE, '/pnl');
    expect(h.last(ALICE.id).text).toContain('Nothing settled');
  });

  it('a refused archive moves nothing', async () => {
    await setUp();
    await placeAndSettle('a1');
    h.fake.failNext({ method: 'sendDocument', count: 5, code: 400, description: 'Bad Request: no files' });
    await h.say(ALICE, '/archive all');
    expect(h.last(ALICE.id).text).toContain('so nothing was moved');
    expect((await h.store.ledger.book(ALICE.id)).positions).toHaveLength(1);
  });

  it('a full ledger refuses a new position and says how to make room; settling a held one still works', async () => {
    await setUp({ env: { LEDGER_MAX_POSITIONS: '10' } });
    for (let i = 0; i < 9; i++) await placeAndSettle(`a${(i % 3) + 1}`);
    const tenth = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a1')]]);
    await h.press(ALICE, tenth, placed('a1'));
    expect((await h.store.ledger.book(ALICE.id)).positions).toHaveLength(10);
    const alert = await h.plant(ALICE.id, 'alert', [['✅ Placed', placed('a2')]]);
    await h.press(ALICE, alert, placed('a2'));
    const full = h.last(ALICE.id).text;
    expect(full).toContain('Your ledger holds 10 positions, the most it keeps, so this one was not recorded');
    expect(full).toContain('/archive');
    expect((await h.store.ledger.book(ALICE.id)).positions).toHaveLength(10);
    // The refused record took no number: the next position will be #b (11), as if it had never been tried.
    expect((await h.store.ledger.book(ALICE.id)).settings.nextId).toBe(11);
    expect(h.logs.join('\n')).not.toContain('update failed');
    await h.say(ALICE, '/open');
    const list = h.last(ALICE.id);
    await h.press(ALICE, list, h.button(list, '1) won'));
    expect(h.callbackText()).toBe('Position #a settled: +39.50.');
  });

  it('/pnl, /export and /archive share a per-user cap, and say when the next is possible', async () => {
    await setUp();
    await placeAndSettle('a1');
    for (let i = 0; i < CAP_RULES.report.perUser; i++) await h.say(ALICE, i % 2 === 0 ? '/export all text' : '/pnl 7d');
    await h.say(ALICE, '/pnl');
    expect(h.last(ALICE.id).text).toContain(`That was ${CAP_RULES.report.perUser} ledger reports`);
    await h.clock.advance(CAP_RULES.report.windowMs);
    await h.say(ALICE, '/export all text');
    expect(h.last(ALICE.id).text).toContain('as text, 1 of 1');
  });
});
