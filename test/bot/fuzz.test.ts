/**
 * A seeded sweep of hostile input (issue 32 item 5): every command the bot knows, with random and
 * adversarial arguments; random typed answers to whatever question is open; presses of the real
 * buttons on the bot's last messages; and forged callback data of every kind (other users' ids,
 * huge and negative numbers, junk), in the private chat and in a group. After each update the user
 * must have had an answer in words; after the sweep no error may have escaped a handler, every log
 * line must parse, and the other user's record and ledger must be exactly as they were.
 */
import type { InlineKeyboardMarkup } from 'grammy/types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KNOWN_COMMANDS } from '../../src/bot/commands.js';
import { CALLBACK_PREFIXES } from '../../src/bot/callback-data/registry.js';
import { encodeAlertAction, type AlertAction } from '../../src/alerts/callbacks.js';
import { makeItem } from './fakes.js';
import { ALICE, BORIS, createHarness, type Harness } from './harness.js';
import { createRng } from '../../src/sandbox/prng.js';

const SEED = 20261128;
const STEPS = 360;
const GROUP = -100_4242;

/** The sandbox's seeded generator (mulberry32), so a failure is the same on every run. */
function generator(seed: number): () => number {
  const rng = createRng(seed, 'fuzz');
  return () => rng.next();
}

const WORDS = [
  '', ' ', '0', '-1', '-0', '1e308', '1e-308', '99999999999999999999', 'NaN', 'Infinity', '-Infinity', '1/0', '0x1F',
  '3%', '2,5', '1 000 000', '1.5-15', '23-7', '25:00-99:99', 'GMT+99', 'UTC-14', 'Europe/Atlantis',
  'x'.repeat(5000), 'я'.repeat(300), '\u0000\u0007\u001b[31m', '\u202eevil', '🙂🙃', '<b>bold</b>&amp;', '<script>alert(1)</script>',
  '"quoted"', "' OR 1=1 --", '__proto__', 'constructor', 'prototype', '../../etc/passwd', String(BORIS.id), String(-BORIS.id),
  'arbs_prematch', 'valuebets_live', 'nonsense_service', 'min_profit=NaN', 'min_profit=1e400', 'max_odds=-5', 'sports=__proto__',
  'bookmakers=,,,', 'hours=0', 'commission=50.0001', 'max=-5', 'step=0.001', 'status=open', 'reset', 'lang', 'tz', 'bankroll',
  'quiet', 'alerts', String(GROUP), '@someone', 'demo-key', 'pinnacle', 'Pinacle', 'football', 'bask', '1 150', '2 profit',
  '2.10 100', '1000 100000000', '1000 99999999', '1.01 0.01', '1.57 628 Marathon', 'W1', 'TO(2.5)', 'EV', 'all', '7d', '2026-13', 'yes', 'no',
];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

function words(rand: () => number, max: number): string {
  const n = Math.floor(rand() * (max + 1));
  return Array.from({ length: n }, () => pick(rand, WORDS)).join(' ');
}

/** Forged data for one kind: its prefix and a few segments of junk, ids and numbers, within 64 bytes. */
function forged(rand: () => number): string {
  const prefix = pick(rand, Object.values(CALLBACK_PREFIXES));
  const segments = Array.from({ length: 1 + Math.floor(rand() * 4) }, () =>
    pick(rand, ['0', '1', '-1', '999999999', String(BORIS.id), 'x', 'a1', 'NaN', '__proto__', 'y', 'p', 'e', 's', '1e9', '']),
  );
  return Buffer.from(`${prefix}${segments.join(':')}`).subarray(0, 64).toString();
}

function buttonsOf(message: { reply_markup?: unknown }): string[] {
  const markup = message.reply_markup as InlineKeyboardMarkup | undefined;
  return (markup?.inline_keyboard ?? []).flat().flatMap((b) => ('callback_data' in b && b.callback_data ? [b.callback_data] : []));
}

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

describe('hostile input, seeded', () => {
  it(`answers every one of ${STEPS} hostile updates in words, never crashes, logs only JSON and touches no other user's data`, async () => {
    const rand = generator(SEED);
    h.client.addKey('boris-key', 'boris-secret-0123456789');
    await h.connect(ALICE);
    await h.say(ALICE, '/filter arbs_prematch');
    await h.say(BORIS, '/connect boris-key boris-secret-0123456789');
    await h.say(BORIS, '/filter arbs_live');
    await h.say(BORIS, '/book pinnacle max=100');
    h.fake.setChat({ id: GROUP, type: 'supergroup', title: 'Room', botIsAdmin: true, adminIds: [ALICE.id, BORIS.id] });
    const items = [makeItem({ id: 'fz1', eventId: 'ev-fz1' }), makeItem({ id: 'fz2', eventId: 'ev-fz2', profit: 4 })];
    h.scheduler.latest.set(ALICE.id, items);
    h.client.items = items;
    await h.store.flush();
    const borisBefore = JSON.stringify(h.store.getUser(BORIS.id));
    const commands = [...KNOWN_COMMANDS];
    const answers = () =>
      ['sendMessage', 'editMessageText', 'editMessageReplyMarkup', 'answerCallbackQuery', 'sendPhoto', 'sendDocument', 'deleteMessage'].reduce(
        (n, method) => n + h.fake.calls(method).length,
        0,
      );
    const silent: string[] = [];

    for (let step = 0; step < STEPS; step++) {
      const before = answers();
      const roll = rand();
      let what: string;
      if (roll < 0.35) {
        what = `/${pick(rand, commands)} ${words(rand, 3)}`.trim();
        await h.say(ALICE, what);
      } else if (roll < 0.65) {
        what = words(rand, 2) || 'x';
        await h.say(ALICE, what);
      } else if (roll < 0.85) {
        const recent = h.sent(ALICE.id).slice(-3);
        const message = recent.length > 0 ? pick(rand, recent) : undefined;
        const data = message ? buttonsOf(message) : [];
        if (!message || data.length === 0) continue;
        what = pick(rand, data);
        await h.press(ALICE, message, what);
      } else if (roll < 0.93) {
        const action: AlertAction = pick(rand, [
          { type: 'placed', service: 'arbs_prematch', itemId: pick(rand, ['fz1', 'fz2', 'gone', '__proto__']) },
          { type: 'stakes', service: 'arbs_prematch', itemId: 'fz2' },
          { type: 'mute', service: 'arbs_live', eventId: 'ev-fz1' },
          { type: 'event', service: 'valuebets_prematch', eventId: '9'.repeat(20) },
        ] as AlertAction[]);
        what = encodeAlertAction(action) ?? forged(rand);
        const chat = rand() < 0.5 ? ALICE.id : GROUP;
        const planted = await h.plant(chat, 'alert', [['x', what]]);
        await h.press(ALICE, planted, what);
      } else {
        what = forged(rand);
        const planted = await h.plant(rand() < 0.5 ? ALICE.id : GROUP, 'forged', [['x', what]]);
        await h.press(ALICE, planted, what);
      }
      if (answers() === before) silent.push(`${step}: ${what.slice(0, 80)}`);
    }

    expect(silent, 'updates answered with nothing').toEqual([]);
    const records = h.logs.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(records.filter((r) => r.level >= 50).map((r) => r.msg)).toEqual([]);
    await h.store.flush();
    expect(JSON.stringify(h.store.getUser(BORIS.id))).toBe(borisBefore);
  }, 60_000);
});
