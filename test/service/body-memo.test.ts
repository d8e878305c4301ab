/**
 * The body memo (parse-cache.ts `BodyMemo`, parse-items.ts `parseItemsAnswer`): a poll whose body
 * is its endpoint's last one again, but for the envelope's timestamp, gives the last read back
 * without being parsed. Pinned here: where the timestamp is found (and where it is not, so the
 * memo falls back to the whole text), that a hit parses nothing, and — over random sequences of
 * bodies in many shapes — that the memo's answer always equals a fresh parse of the same body.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isServiceError } from '../../src/service/errors.js';
import { parseJsonBody, requireJson, type HttpTextResponse } from '../../src/service/http.js';
import { BodyMemo, MAX_MEMO_BODY_BYTES, stampSpan } from '../../src/service/parse-cache.js';
import {
  createItemsBodyMemo,
  createItemsParseCache,
  parseItemsAnswer,
  parseItemsBody,
  type ItemsMemoSlot,
} from '../../src/service/parse-items.js';
import type { ItemsRead } from '../../src/service/opportunity.js';
import type { Service } from '../../src/service/services.js';

afterEach(() => vi.restoreAllMocks());

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

const spanText = (text: string) => {
  const bytes = Buffer.from(text);
  const span = stampSpan(bytes);
  return span && bytes.toString('utf8', span[0], span[1]);
};

describe('stampSpan', () => {
  it('finds the top-level timestamp before the lists, whatever its type and the spacing', () => {
    expect(spanText('{"filtered":3,"masked":false,"timestamp":1767436153,"items":[],"events":[]}')).toBe('1767436153');
    expect(spanText('{ "timestamp" : "2026-01-03 10:00:00" , "items" : [ ] }')).toBe('"2026-01-03 10:00:00"');
    expect(spanText('{\n  "masked": null,\n  "timestamp": null\n}')).toBe('null');
    expect(spanText('{"note":"a \\"quoted\\" } word","timestamp":-1.5e3,"items":[]}')).toBe('-1.5e3');
    // Offsets are bytes: characters of several bytes before it change nothing.
    expect(spanText('{"note":"Лига чемпионов","timestamp":"2026-01-03 10:00:00","items":[]}')).toBe('"2026-01-03 10:00:00"');
  });

  it('finds nothing it could get wrong: after a list, twice, behind an escaped key, nested, or not an object', () => {
    expect(stampSpan(Buffer.from('{"items":[],"timestamp":1}'))).toBeUndefined();
    expect(stampSpan(Buffer.from('{"timestamp":1,"timestamp":2,"items":[]}'))).toBeUndefined();
    expect(stampSpan(Buffer.from('{"ti\\u006destamp":1,"items":[]}'))).toBeUndefined();
    expect(stampSpan(Buffer.from('{"a\\"b":1,"timestamp":1,"items":[]}'))).toBeUndefined();
    expect(stampSpan(Buffer.from('{"meta":{"timestamp":1},"items":[]}'))).toBeUndefined();
    expect(stampSpan(Buffer.from('[{"timestamp":1}]'))).toBeUndefined();
    expect(stampSpan(Buffer.from('{"timestamp":'))).toBeUndefined();
    expect(stampSpan(Buffer.from(''))).toBeUndefined();
  });
});

/** Raw items and events in the service's wire shape, drawn from `random`. */
function world(random: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const events = Array.from({ length: 4 }, (_, i) => ({
    id: `ev-${i}`,
    sport_id: 1 + i,
    league: pick(['Premier League', 'Лига чемпионов', 'Série A', 'A "quoted" cup']),
    team_1: `Home ${i}`,
    team_2: `Away ${i}`,
    start: '2026-01-03 18:00:00',
    live: random() < 0.5,
    sub_events: [{ id: `se-${i}`, bookmaker_id: 10 + i }],
  }));
  const item = (n: number) => ({
    id: `item-${n}`,
    event_id: `ev-${n % 4}`,
    value: Math.round(random() * 500) / 100,
    created: '2026-01-03 10:00:00',
    ...(random() < 0.1 ? { timestamp: 5 } : {}),
    odds: [
      { sub_event_id: `se-${n % 4}`, type_id: 1, value: 1 + Math.round(random() * 300) / 100, prev: 2, index: '', updated: '2026-01-03 10:00:01', initiator: true },
      { sub_event_id: `se-${n % 4}`, bookmaker_id: 20, type_id: 2, value: pick([1.9, 2.05, '2.10', 0]), prev: 0, index: '1.5', updated: 1767436153, initiator: false },
    ],
  });
  return { events, item, pick };
}

/** One body text for `state`, in a shape drawn from `random` (the timestamp's place, type and spelling, spacing). */
function bodyText(random: () => number, state: { items: unknown[]; events: unknown[]; stamp: number; masked: boolean }): string {
  const r = random();
  const stamp =
    r < 0.5 ? state.stamp : r < 0.65 ? `"${new Date(state.stamp * 1000).toISOString().slice(0, 19).replace('T', ' ')}"` : r < 0.7 ? 'null' : r < 0.75 ? `${state.stamp}.25` : r < 0.78 ? 'true' : r < 0.8 ? '1e400' : state.stamp;
  const lists = `"items":${JSON.stringify(state.items)},"events":${JSON.stringify(state.events)}`;
  const shape = random();
  let text: string;
  if (shape < 0.6) text = `{"filtered":${state.items.length},"masked":${state.masked},"timestamp":${stamp},${lists}}`;
  else if (shape < 0.7) text = `{"masked":${state.masked},${lists},"timestamp":${stamp}}`;
  else if (shape < 0.75) text = `{"timestamp":${stamp},"masked":${state.masked},${lists},"timestamp":7}`;
  else if (shape < 0.8) text = `{"timestamp":${stamp},"masked":${state.masked},${lists},"time\\u0073tamp":7}`;
  else if (shape < 0.85) text = `{"masked":${state.masked},${lists}}`;
  else if (shape < 0.9) text = JSON.stringify(JSON.parse(`{"timestamp":${stamp === 'true' ? 1 : stamp === '1e400' ? 2 : stamp},"masked":${state.masked},${lists}}`), null, 2);
  else if (shape < 0.95) text = JSON.stringify(state.items);
  else text = `{"timestamp":${stamp},"items":"none"}`;
  return random() < 0.1 ? `\n ${text} \n` : text;
}

type Outcome = { read: ItemsRead } | { error: string };

function outcome(fn: () => ItemsRead): Outcome {
  try {
    return { read: fn() };
  } catch (err) {
    if (!isServiceError(err)) throw err;
    return { error: `${err.kind}: ${err.message}` };
  }
}

describe('parseItemsAnswer', () => {
  const service: Service = 'arbs_live';
  const slot = (key: string): ItemsMemoSlot => ({ cache: createItemsParseCache(), memo: createItemsBodyMemo(), key });
  const answer = (text: string): HttpTextResponse => ({ status: 200, text });

  it('gives the last read back for the same body with a new timestamp, parsing nothing but the timestamp', () => {
    const s = slot('GET /items');
    const body = (stamp: number) => `{"filtered":1,"masked":false,"timestamp":${stamp},"items":[{"id":"a","event_id":"e","value":2.5,"odds":[{"sub_event_id":"s","type_id":1,"value":2.1}]}],"events":[{"id":"e","league":"L"}]}`;
    const first = parseItemsAnswer(service, answer(body(1767436153)), 'read', s);
    const parse = vi.spyOn(JSON, 'parse');
    const again = parseItemsAnswer(service, answer(body(1767436158)), 'read', s);
    expect(parse.mock.calls.map(([text]) => text)).toEqual(['1767436158']);
    expect(again.items[0]).toBe(first.items[0]);
    expect(again.items).not.toBe(first.items);
    expect(again.timestamp).toBe(1767436158_000);
    expect(first.timestamp).toBe(1767436153_000);
    // Anything else changed: parsed again.
    parseItemsAnswer(service, answer(body(1767436159).replace('2.5', '2.6')), 'read', s);
    expect(parse.mock.calls.length).toBeGreaterThan(1);
  });

  it('never decodes a body it gives back: the bytes as they came are enough', () => {
    const s = slot('GET /bytes');
    const body = (stamp: number) => `{"timestamp":${stamp},"items":[{"id":"a","event_id":"e","value":2.5,"odds":[{"sub_event_id":"s","type_id":1,"value":2.1}]}],"events":[{"id":"e","league":"Süper Lig"}]}`;
    const first = parseItemsAnswer(service, { status: 200, bytes: Buffer.from(body(1767436153)), text: body(1767436153) }, 'read', s);
    const undecodable: HttpTextResponse = {
      status: 200,
      bytes: Buffer.from(body(1767436160)),
      get text(): string {
        throw new Error('decoded');
      },
    };
    const again = parseItemsAnswer(service, undecodable, 'read', s);
    expect(again.items[0]).toBe(first.items[0]);
    expect(again.timestamp).toBe(1767436160_000);
  });

  it('parses a body longer than the memo keeps every time', () => {
    const s = slot('GET /big');
    const items = Array.from({ length: 150 }, (_, n) => ({ id: `i-${n}`, event_id: 'e', value: 3, odds: [{ sub_event_id: 's', type_id: 1, value: 2 }] }));
    const body = (stamp: number) => `{"timestamp":${stamp},"items":${JSON.stringify(items)},"events":[{"id":"e"}]}`;
    expect(body(1).length).toBeGreaterThan(MAX_MEMO_BODY_BYTES);
    parseItemsAnswer(service, answer(body(1)), 'read', s);
    const parse = vi.spyOn(JSON, 'parse');
    parseItemsAnswer(service, answer(body(2)), 'read', s);
    expect(parse.mock.calls.some(([text]) => String(text).length > MAX_MEMO_BODY_BYTES)).toBe(true);
  });

  it('always answers as a fresh parse of the same body would, over random sequences of bodies', () => {
    const reuse = vi.spyOn(BodyMemo.prototype, 'reuse');
    for (let seed = 1; seed <= 12; seed++) {
      const random = seeded(seed);
      const { events, item, pick } = world(random);
      const slots = [slot('POST /a'), slot('GET /b')];
      const states = slots.map(() => ({ items: [item(1), item(2)], events, stamp: 1767436153, masked: false }));
      for (let step = 0; step < 400; step++) {
        const at = Math.floor(random() * slots.length);
        const state = states[at]!;
        state.stamp += 1 + Math.floor(random() * 3);
        const change = random();
        if (change < 0.1) state.items = [...state.items, item(3 + Math.floor(random() * 20))].slice(-5);
        else if (change < 0.2) state.items = state.items.slice(1);
        else if (change < 0.3) state.items = state.items.map((x) => (random() < 0.5 ? item(Number(String((x as { id: string }).id).slice(5))) : x));
        else if (change < 0.33) state.masked = !state.masked;
        else if (change < 0.35) state.events = [pick(events)];
        else if (change < 0.37) state.events = events;
        const text = bodyText(random, state);
        const fresh = outcome(() => parseItemsBody(service, requireJson(parseJsonBody(answer(text)), 'read'), 'read'));
        const memo = outcome(() => parseItemsAnswer(service, answer(text), 'read', slots[at]!));
        expect(memo, `seed ${seed}, step ${step}: ${text}`).toEqual(fresh);
      }
    }
    // The memo was tried on every body and gave an earlier read back for many of them.
    const hits = reuse.mock.results.filter((r) => r.value !== undefined).length;
    expect(reuse.mock.calls.length).toBe(12 * 400);
    expect(hits).toBeGreaterThan(500);
  });
});
