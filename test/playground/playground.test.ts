/**
 * The playground end to end, as a person would use it: typed lines in, the terminal's text out,
 * with the real bot, the sandbox and the Bot API stand-in behind it.
 */
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlayground, type Playground } from '../../src/playground/playground.js';

describe('playground', () => {
  let playground: Playground;
  const input = new PassThrough();
  const output = new PassThrough();
  let screen = '';
  output.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
  });

  /** Waits until the terminal shows text matching `pattern` after position `from`. */
  async function seen(pattern: RegExp, from = 0, timeoutMs = 15_000): Promise<number> {
    const started = Date.now();
    for (;;) {
      const at = screen.slice(from).search(pattern);
      if (at >= 0) return from + at;
      if (Date.now() - started > timeoutMs) throw new Error(`not shown within ${timeoutMs} ms: ${pattern}\n---\n${screen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    playground = await startPlayground({ input, output, pollIntervalSeconds: 1 });
  });
  afterAll(async () => {
    await playground.stop();
  });

  it('runs a scripted session: connect, filter, an alert arrives, a button pressed', async () => {
    expect(await seen(/Playground:/)).toBeGreaterThanOrEqual(0);
    const { accessKey, secret } = playground.sandbox.demoKey;

    input.write('/start\n');
    let at = await seen(/\/connect/);

    input.write(`/connect ${accessKey} ${secret}\n`);
    at = await seen(/connected/, at);
    // The bot deleted the message that carried the secret, and never echoed it.
    const deleted = playground.telegram.userMessages().filter((m) => m.deleted);
    expect(deleted.some((m) => m.text.includes(secret))).toBe(true);
    expect(screen.slice(at)).not.toContain(secret);

    input.write('/filter arbs_prematch\n');
    at = await seen(/saved/i, at);

    // The sandbox produces arbs all the time; make one appear now so the test does not depend on luck.
    playground.sandbox.world.inject('arbs_prematch', { profit: 7 });
    const alertAt = await seen(/Arb \+\d+\.\d+%/, at);
    const buttonsAt = await seen(/\[\d+ [^\]]*Other amount\]/, alertAt);

    // Press "Other amount" on the newest keyboard by typing its number.
    const number = /\[(\d+) [^\]]*Other amount\]/.exec(screen.slice(buttonsAt))?.[1];
    expect(number).toBeDefined();
    const before = playground.telegram.calls('answerCallbackQuery').length;
    input.write(`${number}\n`);
    at = await seen(/Send the amount to split/, buttonsAt);
    await expect
      .poll(() => playground.telegram.calls('answerCallbackQuery').length, { timeout: 5_000 })
      .toBeGreaterThan(before);

    // Answer with an amount: the card comes back with stakes for it.
    input.write('250\n');
    await seen(/Stakes for 250/, at);

    // The ledger: place the alert with one tap, settle it in /open, see /pnl's chart and /export's CSV saved.
    const placedNumber = /\[(\d+) ✅ Placed\]/.exec(screen.slice(buttonsAt))?.[1];
    expect(placedNumber).toBeDefined();
    at = screen.length;
    input.write(`${placedNumber}\n`);
    at = await seen(/Recorded as position #1/, at);
    input.write('/open\n');
    at = await seen(/Unsettled positions/, at);
    const wonAt = await seen(/\[\d+ #1 1\) won\]/, at);
    const won = /\[(\d+) #1 1\) won\]/.exec(screen.slice(wonAt))?.[1];
    input.write(`${won}\n`);
    at = await seen(/Position #1 settled/, at);
    input.write('/pnl\n');
    at = await seen(/photo saved to (\S+\.png)/, at);
    const png = /photo saved to (\S+\.png)/.exec(screen.slice(at))![1]!;
    expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
    input.write('/export\n');
    at = await seen(/document saved to (\S+\.csv)/, at);
    const csv = /document saved to (\S+\.csv)/.exec(screen.slice(at))![1]!;
    expect(readFileSync(csv, 'utf8').split('\n')[0]).toMatch(/^bet_id,position_id,/);

    // The whole session stayed within the service's limits.
    expect(playground.sandbox.counters().breaches).toBe(0);
  }, 60_000);
});
