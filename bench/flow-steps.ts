/**
 * Guided-flow answer times: the real app (`startApp`, long polling, the outbox pacing every reply)
 * against the sandbox and the fake Bot API with Telegram's flood control, over loopback. A user
 * walks a 30-step `/filter` (service, sports and bookmakers toggled one by one, pages turned, a
 * wrong value typed, ranges, Save), pausing as a person does between taps; each step is timed
 * from the update's arrival at the fake Bot API to the bot's first visible answer there (a
 * message or an edit in the chat). The baseline, in the same run: `/help`, a plain command,
 * asked before and after the flow.
 *
 *   npx tsx bench/flow-steps.ts
 *   BENCH_THINK_MS=1500 npx tsx bench/flow-steps.ts
 *
 * Target (issue 21): no step slower than the first by more than 150 ms; every step within 300 ms.
 */
import { performance } from 'node:perf_hooks';
import type { InlineKeyboardMarkup } from 'grammy/types';
import type { FakeTelegram, FakeUser, SentMessage } from '../src/fake-telegram/server.js';
import { envInt, isEntryPoint, report, type BenchResult } from './lib/result.js';
import { startAppWorld } from './lib/app-world.js';
import { sleep, waitFor } from './lib/setup.js';
import { median, ms } from './lib/stats.js';

const STEPS = 30;
/** How long a step may take before the run stops as stuck. */
const STUCK_MS = 15_000;
/** Commands timed before the flow and again after it. */
const BASELINE_COMMANDS = 3;

export interface FlowStepsOptions {
  /** A person's pause between the bot's answer and the next tap, real ms. */
  thinkMs: number;
}

function buttonsOf(message: SentMessage): { text: string; data: string }[] {
  const markup = message.reply_markup as InlineKeyboardMarkup | undefined;
  return (markup?.inline_keyboard ?? []).flat().flatMap((b) => ('callback_data' in b && b.callback_data ? [{ text: b.text, data: b.callback_data }] : []));
}

/** Times one update: from its arrival to the first message or edit the bot makes in the chat. */
async function timed(telegram: FakeTelegram, chatId: number, send: () => void): Promise<number> {
  const before = telegram.calls().length;
  const started = performance.now();
  send();
  await waitFor(
    'the bot to answer',
    () => (telegram.calls().slice(before).some((c) => /^(send|edit)/.test(c.method) && Number(c.payload.chat_id) === chatId) ? true : undefined),
    STUCK_MS,
    1,
  );
  return performance.now() - started;
}

export async function runFlowSteps(opts: FlowStepsOptions): Promise<BenchResult> {
  const world = await startAppWorld({ name: 'flow', sandbox: { seed: 11 }, telegram: { floodControl: true } });
  const { sandbox, telegram } = world;
  const user: FakeUser = { id: 7101, first_name: 'Bench', language_code: 'en' };
  const chat = user.id;
  const newest = (): SentMessage => {
    const all = telegram.messages(chat).filter((m) => !m.deleted && buttonsOf(m).length > 0);
    const last = all[all.length - 1];
    if (!last) throw new Error('no message with buttons');
    return last;
  };

  try {
    telegram.sendText(user, '/start');
    await telegram.waitForMessage((m) => m.chat_id === chat && /\/connect/.test(m.text), 15_000);
    telegram.sendText(user, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`);
    await telegram.waitForMessage((m) => m.chat_id === chat && /connected/.test(m.text), 15_000);
    await sleep(opts.thinkMs);

    const steps: number[] = [];
    const commands: number[] = [];
    const step = async (send: () => void) => {
      steps.push(await timed(telegram, chat, send));
      await sleep(opts.thinkMs);
    };
    // A command typed mid-flow closes the flow: the baseline is asked before and after it.
    const baseline = async () => {
      for (let i = 0; i < BASELINE_COMMANDS; i++) {
        commands.push(await timed(telegram, chat, () => telegram.sendText(user, '/help')));
        await sleep(opts.thinkMs);
      }
    };
    await baseline();
    const press = (pick: (b: { text: string }) => boolean) =>
      step(() => {
        const message = newest();
        const button = buttonsOf(message).find(pick);
        if (!button) throw new Error(`no such button on: ${buttonsOf(message).map((b) => b.text).join(' | ')}`);
        telegram.pressButton(user, message, button.data);
      });
    const say = (text: string) => step(() => telegram.sendText(user, text));
    /** Option buttons of a picker: not its paging, "All" or "Done" rows. */
    const options = () => buttonsOf(newest()).filter((b) => !/^(‹|›|\d+\/\d+|All|Done|Clear|✅)/.test(b.text));

    await say('/filter');
    await press((b) => b.text === 'Arbs · prematch');
    // Sports: toggled one by one (each press leaves a new selection), a page turned and back.
    for (let i = 0; i < 6 && options().length > 0; i++) await press((b) => b.text === options()[0]?.text);
    await press((b) => b.text === '›');
    await press((b) => b.text === '‹');
    await press((b) => b.text.startsWith('Done'));
    // Bookmakers: toggled until the flow's last steps remain.
    const tail = 7;
    while (steps.length < STEPS - tail) {
      if (options().length > 0) await press((b) => b.text === options()[0]?.text);
      else if (buttonsOf(newest()).some((b) => b.text === '›')) await press((b) => b.text === '›');
      else break;
    }
    await press((b) => b.text.startsWith('Done'));
    await say('abc');
    await say('1-10');
    await press((b) => b.text === 'Any odds');
    await say('twelve');
    await say('12');
    await press((b) => b.text.includes('Save'));
    await baseline();

    const first = steps[0] ?? 0;
    const worstOver = Math.max(...steps.map((s) => s - first));
    const slowest = Math.max(...steps);
    return {
      bench: 'Guided flow answer times (/filter, 30 steps)',
      setup:
        `startApp on loopback with its outbox pacing replies; fake Bot API with Telegram's flood control; ` +
        `${steps.length} steps of /filter, ${opts.thinkMs} ms between an answer and the next tap; /help before and after the flow as the baseline`,
      figures: [
        { metric: 'each step, in order', value: steps.map((s) => Math.round(s)).join(' ') + ' ms' },
        { metric: `step 1 / step ${steps.length}`, value: `${ms(first)} / ${ms(steps[steps.length - 1] ?? Number.NaN)}` },
        { metric: 'slowest step over the first', value: ms(worstOver), target: '≤ 150 ms', pass: worstOver <= 150 },
        { metric: 'slowest step', value: ms(slowest), target: '≤ 300 ms', pass: slowest <= 300 },
        { metric: 'a command (/help), median (baseline)', value: ms(median(commands)) },
        { metric: 'flow steps, median ÷ command median', value: `× ${(median(steps) / median(commands)).toFixed(2)}` },
        { metric: 'Telegram 429s', value: String(telegram.calls().filter((c) => c.error_code === 429).length), target: '0' },
      ],
      values: { first, worstOver, slowest },
    };
  } finally {
    await world.close();
  }
}

if (isEntryPoint(import.meta.url)) {
  const result = await runFlowSteps({ thinkMs: envInt('BENCH_THINK_MS', 2_500, 0, 60_000) });
  await report([result]);
}
