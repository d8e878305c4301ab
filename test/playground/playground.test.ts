/**
 * The playground end to end, as a person would use it: typed lines in, the terminal's text out,
 * with the real bot, the sandbox and the Bot API stand-in behind it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  const saved: string[] = [];
  afterAll(async () => {
    await playground.stop();
    // The charts and CSVs (a ledger) went with the run's folder.
    expect(saved.length).toBeGreaterThan(0);
    for (const file of [...saved, playground.mediaDir]) expect(existsSync(file), file).toBe(false);
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
    // The first read shows what is open now (one summary when there are several); new items come one by one after it.
    await seen(/opportunities open now|Other amount\]/, at);
    at = screen.length;

    // The sandbox produces arbs all the time; make one appear now so the test does not depend on luck.
    playground.sandbox.world.inject('arbs_prematch', { profit: 7 });
    const alertAt = await seen(/Arb \+\d+\.\d+%/, at);
    const buttonsAt = await seen(/\[\d+\.\d+ [^\]]*Other amount\]/, alertAt);

    // Press "Other amount" by typing what its brackets show (the alert's number, a dot, the button's).
    const number = /\[(\d+\.\d+) [^\]]*Other amount\]/.exec(screen.slice(buttonsAt))?.[1];
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
    const placedNumber = /\[(\d+(?:\.\d+)?) ✅ Placed\]/.exec(screen.slice(buttonsAt))?.[1];
    expect(placedNumber).toBeDefined();
    at = screen.length;
    input.write(`${placedNumber}\n`);
    at = await seen(/Recorded as position #1/, at);
    input.write('/open\n');
    at = await seen(/Unsettled positions/, at);
    const wonAt = await seen(/\[#?\d+(?:\.\d+)? #1 1\) won\]/, at);
    const won = /\[(#?\d+(?:\.\d+)?) #1 1\) won\]/.exec(screen.slice(wonAt))?.[1];
    input.write(`${won}\n`);
    at = await seen(/Position #1 settled/, at);
    input.write('/pnl\n');
    // The first chart starts the chart worker (ECharts and resvg through tsx): on a busy machine that alone
    // took over 15 s, so the wait is the drawer's own limit (CHART_TIMEOUT_MS, 30 s) and a little more.
    at = await seen(/photo saved to (\S+\.png)/, at, 35_000);
    const png = /photo saved to (\S+\.png)/.exec(screen.slice(at))![1]!;
    expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
    input.write('/export\n');
    at = await seen(/document saved to (\S+\.csv)/, at);
    const csv = /document saved to (\S+\.csv)/.exec(screen.slice(at))![1]!;
    expect(readFileSync(csv, 'utf8').split('\n')[0]).toMatch(/^bet_id,position_id,/);
    // #33: in this run's own temporary folder (not a fixed one every run shares), which goes at exit.
    expect(dirname(png)).toBe(playground.mediaDir);
    expect(dirname(csv)).toBe(playground.mediaDir);
    expect(playground.mediaDir).not.toBe(join(tmpdir(), 'bb-playground-files'));
    saved.push(png, csv);

    // The whole session stayed within the service's limits.
    expect(playground.sandbox.counters().breaches).toBe(0);
  }, 90_000);

  /** The number the screen shows in brackets for a button, after `from`. */
  function buttonNumber(label: RegExp, from: number): string {
    const m = new RegExp(`\\[(\\d+(?:\\.\\d+)?) ${label.source}\\]`).exec(screen.slice(from));
    if (!m?.[1]) throw new Error(`no button ${label} on screen after ${from}\n---\n${screen.slice(from)}`);
    return m[1];
  }

  it('a number presses a button of the open question, never of an alert that arrived meanwhile', async () => {
    input.write('/settings\n');
    let at = await seen(/Settings/, screen.length);
    await seen(/\[1 🌐 Language\]/, at);
    // An alert arrives while the menu is open: its buttons are numbered by message (7.1, 7.2, …).
    playground.sandbox.world.inject('arbs_prematch', { profit: 9 });
    const alertAt = await seen(/· alert ──/, at);
    await seen(/\[\d+\.1 [^\]]+\]/, alertAt);
    input.write('1\n');
    at = await seen(/Which language\?/, alertAt);
    input.write(`${buttonNumber(/English/, at)}\n`);
    at = await seen(/Saved/i, at);
    await seen(/Done ✓\]/, at);
    input.write(`${buttonNumber(/Done ✓/, at)}\n`);
    await seen(/\(\d+: answered, its buttons are gone\)/, at);
    expect(playground.telegram.calls('answerCallbackQuery').length).toBeGreaterThan(0);
  }, 60_000);

  it('a typed number is the answer where the question takes a number', async () => {
    input.write('/filter\n');
    let at = screen.length;
    await seen(/Arbs · prematch\]/, at);
    input.write(`${buttonNumber(/Arbs · prematch/, at)}\n`);
    at = await seen(/sports\./, at);
    await seen(/Done ✓\]/, at);
    input.write(`${buttonNumber(/Done ✓/, at)}\n`);
    at = await seen(/Bookmakers\./, at);
    await seen(/Done ✓\]/, at);
    input.write(`${buttonNumber(/Done ✓/, at)}\n`);
    at = await seen(/Profit, %/, at);
    // Its ready answer is pressed as #<n>.1; a bare 1 is a minimum of 1 %.
    await seen(/\[#\d+\.1 From 0 %\]/, at);
    input.write('1\n');
    at = await seen(/Odds of every leg/, at);
    expect(screen.slice(at - 400, at)).not.toContain('✔️ From 0 %');
    // A decimal is an answer too, even where it also names a button of an alert (1.2: alert 1's "Other amount").
    await seen(/\[#\d+\.1 Any odds\]/, at);
    input.write('1.2\n');
    at = await seen(/Only events starting within/, at);
    expect(screen.slice(at - 600, at)).toContain('(sent as your answer; #1.2 presses that button instead)');
    expect(screen.slice(at - 600, at)).not.toContain('Send the amount to split');
    input.write('/cancel\n');
    await seen(/Stopped/, at);
  }, 60_000);

  it('@bot words asks inline mode and lists the answer', async () => {
    const from = screen.length;
    input.write('@bot\n');
    await seen(/inline results for “”/, from);
    await seen(/\n {2}1\. /, from);
    input.write('@bb_test_bot zzzz-nothing\n');
    await seen(/inline results for “zzzz-nothing”[^\n]*\n {2}\(no results\)/, from);
    expect(playground.telegram.answers.inline.length).toBeGreaterThanOrEqual(2);
  }, 30_000);
});

describe('playground housekeeping', () => {
  it('reads at the shipped pace and removes its temporary folder (with the encryption key) at stop', async () => {
    const out = new PassThrough();
    out.resume();
    const pg = await startPlayground({ input: new PassThrough(), output: out });
    // As shipped: no floor between reads (the read limit paces them, every 2 s at 30 a minute).
    expect(pg.config.POLL_INTERVAL_SECONDS ?? 0).toBe(0);
    expect(pg.dataDir.startsWith(tmpdir())).toBe(true);
    expect(existsSync(pg.dataDir)).toBe(true);
    await pg.stop();
    expect(existsSync(pg.dataDir)).toBe(false);
  }, 30_000);

  it('npm run playground removes its folders (data; charts and CSVs) on SIGTERM and on Ctrl-C too', async () => {
    // The last: Ctrl-C in a terminal piped through `tee`, which the same Ctrl-C ends first, so
    // the playground's next write fails (EPIPE) and it exits before stop() is done.
    for (const [signal, pipeGone] of [['SIGTERM', false], ['SIGINT', false], ['SIGINT', true]] as const) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/playground/cli.ts'], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const [dir, media] = await new Promise<[string, string]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no log line within 20 s:\n${out}`)), 20_000);
        child.stdout.on('data', () => {
          const m = /The bot's log: (\S+)bot\.log; charts and CSVs: (\S+) \(/.exec(out);
          if (m?.[1] && m[2]) {
            clearTimeout(timer);
            resolve([m[1], m[2]]);
          }
        });
      });
      expect(existsSync(dir)).toBe(true);
      expect(existsSync(media)).toBe(true);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      if (pipeGone) child.stdout.destroy();
      child.kill(signal);
      const code = await exited;
      if (!pipeGone) expect(code).toBe(0);
      expect(existsSync(dir)).toBe(false);
      expect(existsSync(media)).toBe(false);
    }
  }, 60_000);
});
