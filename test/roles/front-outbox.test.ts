/**
 * The front's outbox settings: the items a service finds at the first read after a window without
 * a token (about ten per chat in the busy world) reach the chat as alerts of their own, each naming
 * its item; a flood of dozens still folds into one digest.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { Outbox } from '../../src/outbox/outbox.js';
import { FRONT_OUTBOX_OPTIONS } from '../../src/roles/front.js';
import { run, ScriptedApi, settle } from '../outbox/helpers.js';
import { stopAfterEach } from '../support/teardown.js';

const stopAfter = stopAfterEach();

function setup() {
  const clock = new ManualClock();
  const api = new ScriptedApi(clock);
  const outbox = new Outbox({ api, logger: silentLogger, clock, random: () => 0.5, ...FRONT_OUTBOX_OPTIONS });
  stopAfter(outbox);
  outbox.start();
  return { clock, api, outbox };
}

const burst = (outbox: Outbox, chat: number, n: number) =>
  Array.from({ length: n }, (_, i) => outbox.send(chat, `<b>Alert ${i}</b> item-${i}`, { kind: 'alert', digestLine: `• alert ${i}` }));

describe('the front’s outbox', () => {
  it('sends a window’s backlog of twelve new alerts to one chat one by one, none folded', async () => {
    const { clock, api, outbox } = setup();
    const ids = burst(outbox, 21, 12);
    await settle();
    await run(clock, 15_000);
    const texts = api.sent(21).map((c) => c.text);
    expect(texts).toHaveLength(12);
    for (let i = 0; i < 12; i++) expect(texts[i]).toContain(`item-${i}`);
    expect((await Promise.all(ids)).every((id) => typeof id === 'number')).toBe(true);
    expect(outbox.stats.folded).toBe(0);
    // Telegram's pace for a private chat: a burst of three, then one a second.
    expect(api.sent(21).at(-1)!.at - api.sent(21)[0]!.at).toBeLessThanOrEqual(10_000);
  });

  it('still folds a flood of forty into the first alert and one digest', async () => {
    const { clock, api, outbox } = setup();
    void burst(outbox, 22, 40);
    await settle();
    await run(clock, 15_000);
    expect(api.sent(22).length).toBeLessThan(FRONT_OUTBOX_OPTIONS.digestThreshold + 2);
    expect(outbox.stats.folded).toBeGreaterThan(0);
  });
});
