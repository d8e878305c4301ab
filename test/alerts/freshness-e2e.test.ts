/**
 * Freshness end to end (issue 31, items 1 and 6): the sandbox serves legs of known age — one
 * without `updated`, one in the future, stale ones — from a clock 30 s ahead of the bot's; the real
 * client, scheduler, notifier and outbox bring the alerts to the fake Bot API. Each leg says its
 * age on the service's clock (never negative, nothing when unknown), a stale one is marked ⚠️, a
 * live alert whose every leg is stale comes silently or not at all as the user chose, the footer
 * says how long the alert took from its read to its send, and the event id is there to copy.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../src/fake-telegram/types.js';
import { addUser } from '../scheduler/harness.js';
import { flushAlerts, runStack, startStack, type Stack } from '../scheduler/stack.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const KEYS = [101, 102, 103, 104].map((id) => ({ accessKey: `key-${id}`, secret: `secret-${id}` }));
const SKEW_MS = 30_000;

/** The alert a chat got for an item: the sendMessage call whose text names the item's id. */
function alertFor(calls: RecordedCall[], chatId: number, itemId: string): RecordedCall['payload'] | undefined {
  return calls.find((c) => c.payload.chat_id === chatId && String(c.payload.text).includes(`<code>${itemId}</code>`))?.payload;
}

const legLine = (text: unknown, n: number): string => String(text).split('\n').find((l) => l.startsWith(`${n}) `)) ?? '';
const AGE = / · (⚠️ )?\d+ (s|min|с|мин)/;

describe('freshness of every alert', () => {
  it('shows each leg’s age on the service’s clock, marks stale legs, and sends an all-stale live alert as each user chose', async () => {
    stack = await startStack({
      sandbox: { keys: KEYS, seed: 5, faults: { clockSkewMs: SKEW_MS }, world: { itemsPerService: 0, eventsPerService: 4, meanLifetimeMs: 60 * 60_000, moveEveryMs: 60 * 60_000 } },
    });
    const { store, sandbox, telegram } = stack;
    addUser(store, 101, ['arbs_live'], { accessKey: 'key-101', secret: 'secret-101' });
    addUser(store, 102, ['arbs_live'], { accessKey: 'key-102', secret: 'secret-102', lang: 'ru' });
    addUser(store, 103, ['arbs_live'], { accessKey: 'key-103', secret: 'secret-103' });
    addUser(store, 104, ['arbs_prematch'], { accessKey: 'key-104', secret: 'secret-104' });
    for (const id of [101, 102, 103, 104]) store.updateUser(id, (u) => void (u.books = { '31': { commission: 0 }, '40': { commission: 0 } }));
    store.updateUser(102, (u) => void (u.staleMode = 'drop'));
    store.updateUser(103, (u) => void (u.staleMode = 'show'));
    stack.scheduler.start();
    await runStack(stack, 10_000);

    const fresh = sandbox.world.inject('arbs_live', { profit: 3, legAgesMs: [12_000, null] });
    const stale = sandbox.world.inject('arbs_live', { profit: 3, legAgesMs: [120_000, 90_000] });
    const future = sandbox.world.inject('arbs_live', { profit: 3, legAgesMs: [-60_000, 5_000] });
    const prematch = sandbox.world.inject('arbs_prematch', { profit: 3, legAgesMs: [120_000, 120_000] });
    await runStack(stack, 8_000);
    await flushAlerts(stack);
    // The bot measured the service's clock from its Date headers.
    expect(Math.abs(stack.client.serviceClockOffsetMs!() - SKEW_MS)).toBeLessThanOrEqual(1_000);
    const calls = telegram!.calls('sendMessage').filter((c) => c.ok);

    // 12 s old when injected, read within a poll (5 s) and a step: on the bot's clock alone it would
    // read 18 s in the future (and say nothing); on the service's it is 12–19 s.
    const f = alertFor(calls, 101, fresh.id)!;
    expect(legLine(f.text, 1)).toMatch(/ · 1\d s$/);
    expect(legLine(f.text, 2)).not.toMatch(AGE); // no `updated`: no guess
    expect(f.disable_notification).toBeUndefined();
    expect(String(f.text)).toMatch(/\n⏱ Found \d+\.\d s before sending$/);
    expect(String(f.text)).not.toContain('\u{E000}');
    expect(String(f.text)).toContain(`🆔 <code>${fresh.id}</code> for /item · event <code>${fresh.event_id}</code> for /event`);

    // A time a minute ahead even of the service's clock: no age; the other leg's is there, never negative.
    const x = alertFor(calls, 101, future.id)!;
    expect(legLine(x.text, 1)).not.toMatch(AGE);
    expect(legLine(x.text, 2)).toMatch(/ · \d+ s$/);
    expect(String(x.text)).not.toMatch(/-\d+ s/);

    // Every live leg past 60 s: ⚠️, and silent by default ('quiet').
    const s = alertFor(calls, 101, stale.id)!;
    expect(legLine(s.text, 1)).toMatch(/ · ⚠️ 2 min( \d+ s)?$/);
    expect(legLine(s.text, 2)).toMatch(/ · ⚠️ 1 min \d+ s$/);
    expect(s.disable_notification).toBe(true);
    // 'drop': not sent at all; 'show': sent with a sound, still marked.
    expect(alertFor(calls, 102, stale.id)).toBeUndefined();
    const shown = alertFor(calls, 103, stale.id)!;
    expect(shown.disable_notification).toBeUndefined();
    expect(legLine(shown.text, 1)).toContain('⚠️');

    // Prematch legs two minutes old are fresh under the 15-minute limit.
    const p = alertFor(calls, 104, prematch.id)!;
    expect(legLine(p.text, 1)).toMatch(/ · 2 min( \d+ s)?$/);
    expect(String(p.text)).not.toContain('⚠️ 2 min');
    expect(p.disable_notification).toBeUndefined();

    // Russian: the same lines in its words.
    const ru = alertFor(calls, 102, fresh.id)!;
    expect(legLine(ru.text, 1)).toMatch(/ · 1\d с$/);
    expect(String(ru.text)).toMatch(/\n⏱ Найдено за \d+\.\d с до отправки$/);
    expect(String(ru.text)).toContain(`событие <code>${fresh.event_id}</code> для /event`);
  });
});
