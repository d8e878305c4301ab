/**
 * Bad service data never stops alerts (issue 10, item 3): the parsers keep out items with numbers
 * that are not finite, wrong types and unusable legs (counted by reason, logged once), take absurd
 * times as unknown, and the sandbox's hostile mode serves all of it over real HTTP; through the
 * whole stack every sound item is still alerted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { HOSTILE_IDS } from '../../src/sandbox/hostile.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import { isServiceError } from '../../src/service/errors.js';
import { createItemsParseCache, MAX_SERVICE_TIME_MS, parseItemsBody, parseServiceTime } from '../../src/service/parse-items.js';
import { captureLogs } from '../support/logs.js';
import { arbsEnvelope, configFor } from './helpers.js';

/** The arbs envelope of helpers.ts with its first item changed by `change`. */
function envelopeWith(change: (item: Record<string, unknown>, event: Record<string, unknown>) => void): unknown {
  const body = structuredClone(arbsEnvelope(2)) as { items: Record<string, unknown>[]; events: Record<string, unknown>[] };
  change(body.items[0]!, body.events[0]!);
  return body;
}

describe('parsing refuses bad numbers and clamps absurd times', () => {
  it.each([
    ['a numeric string of 400 digits (Infinity once read)', (i: Record<string, unknown>) => (i.value = '9'.repeat(400)), 'non_finite'],
    ['odds of 400 digits', (i: Record<string, unknown>) => ((i.odds as Record<string, unknown>[])[0]!.value = `1${'0'.repeat(400)}`), 'non_finite'],
    ['a JSON number too large for a double (1e400)', (i: Record<string, unknown>) => (i.value = JSON.parse('1e400') as number), 'non_finite'],
    ['a value of the wrong type', (i: Record<string, unknown>) => (i.value = { percent: 3 }), 'wrong_type'],
    ['no legs', (i: Record<string, unknown>) => (i.odds = []), 'bad_legs'],
    ['a leg without its market', (i: Record<string, unknown>) => delete (i.odds as Record<string, unknown>[])[0]!.type_id, 'bad_legs'],
    ['no event at all', (i: Record<string, unknown>) => delete i.event_id, 'no_event'],
  ])('%s: that item is kept out and counted, the other one stays', (_what, change, reason) => {
    for (const cache of [undefined, createItemsParseCache()]) {
      const read = parseItemsBody('arbs_prematch', envelopeWith(change), 'read', cache);
      expect(read.items.map((i) => i.id)).toEqual(['a2']);
      expect(read.skipped).toBe(1);
      expect(read.rejected).toEqual({ [reason]: 1 });
      for (const item of read.items) expect(Number.isFinite(item.profit)).toBe(true);
    }
  });

  it('a time past the year 9999 (or unreadable) is unknown, and the item is kept', () => {
    expect(parseServiceTime(1e20)).toBeUndefined();
    expect(parseServiceTime(String(1e20))).toBeUndefined();
    expect(parseServiceTime('+275760-09-13T00:00:00.000Z')).toBeUndefined();
    expect(parseServiceTime('10000-01-01T00:00:00Z')).toBeUndefined();
    expect(parseServiceTime(MAX_SERVICE_TIME_MS)).toBe(MAX_SERVICE_TIME_MS);
    const read = parseItemsBody(
      'arbs_prematch',
      envelopeWith((item, event) => {
        event.start = String(1e20);
        item.created = '+275760-09-13T00:00:00.000Z';
        (item.odds as Record<string, unknown>[])[0]!.updated = 1e300;
      }),
      'read',
    );
    expect(read.skipped).toBe(0);
    const first = read.items.find((i) => i.id === 'a1')!;
    expect(first.event.startsAt).toBeUndefined();
    expect(first.createdAt).toBeUndefined();
    expect(first.legs[0]!.updatedAt).toBeUndefined();
  });
});

describe('the sandbox in hostile mode, over real HTTP', () => {
  let sandbox: Sandbox | undefined;
  let client: ServiceClientWithLimits | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await client?.close();
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    client = sandbox = dataDir = undefined;
  });

  it('reads keep the sound items, count the bad ones by reason on every read, and log each reason once', async () => {
    const clock = new ManualClock();
    sandbox = await startSandbox({ clock, seed: 5, hostile: true, world: { itemsPerService: 4 } });
    dataDir = await mkdtemp(join(tmpdir(), 'bb-hostile-'));
    const logs = captureLogs('trace');
    client = createServiceClient({ config: configFor(sandbox.origin, { DATA_DIR: dataDir }), logger: logs.logger, clock, random: () => 0.5, retries: 0 });
    const key = { accessKey: sandbox.demoKey.accessKey, revealSecret: () => sandbox!.demoKey.secret };

    const first = await client.readItems(key, 'arbs_prematch');
    const second = await client.readItems(key, 'arbs_prematch');
    for (const read of [first, second]) {
      const ids = read.items.map((i) => i.id);
      expect(ids).toEqual([...sandbox.currentItems('arbs_prematch').map((i) => i.id), ...HOSTILE_IDS.usable]);
      expect(read.rejected).toEqual({ non_finite: 2, wrong_type: 1, bad_legs: 2, no_event: 1 });
      expect(read.items.find((i) => i.id === 'hostile-far-future')!.event.startsAt).toBeUndefined();
    }
    expect(client.stats().rejectedItems).toEqual({ non_finite: 4, wrong_type: 2, bad_legs: 4, no_event: 2 });
    const warnings = logs.text().split('\n').filter((l) => l.includes('items kept out as unusable'));
    expect(warnings).toHaveLength(4);

    // A by-id read of a bad item is a clear service error; of the clamped one, the item.
    const bad = await client.readItem(key, 'arbs_prematch', 'hostile-huge-value').catch((e: unknown) => e);
    expect(isServiceError(bad) && bad.kind).toBe('malformed');
    const kept = await client.readItem(key, 'arbs_prematch', 'hostile-far-future');
    expect(kept.event.startsAt).toBeUndefined();
  });
});
