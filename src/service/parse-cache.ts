/**
 * Memory of earlier item parses, so that a read repeating what the service said before costs a
 * `JSON.stringify` per item instead of a schema parse and a new object graph. Every subscription
 * of a service polls every few seconds and mostly gets back the items it got last time; parsing
 * them afresh was the largest share of the bot's CPU time and most of its garbage.
 *
 * Keys are the raw values' JSON text. That is an exact fingerprint only for values that came out
 * of `JSON.parse` (no `undefined`, `NaN` or class instances inside), which is why the cache is
 * opt-in: the service client passes one for its bodies, other callers parse without it.
 *
 * Both maps are bounded by generations: when the current one fills up it becomes the previous one
 * and a fresh one starts; an entry used from the previous generation moves back into the current.
 * What every read still returns stays, what the service stopped sending ages out.
 *
 * `BodyMemo` goes one step further for a poll: the same subscription mostly gets back the very
 * body it got last time, but for the envelope's `timestamp`. A body equal to the last one of its
 * endpoint in everything else gives back the last read as it was (with the new timestamp), with
 * no `JSON.parse`, no item looked at, and the body never decoded into a string.
 */
import { hash } from 'node:crypto';

/** Entries per generation; a few services × a few hundred distinct item versions fit many times. */
const GENERATION_SIZE = 20_000;

/** A two-generation map: bounded, and keeps what is still being asked for. */
class GenerationMap<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    const hit = this.current.get(key);
    if (hit !== undefined) return hit;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.current.size >= this.limit) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }
}

/**
 * What a parse produced for one raw value, under a key the caller builds (service, flags, JSON).
 * `E` is the parsed event, `I` the per-item memo; the parser decides what they hold.
 */
export class ParseCache<E, I> {
  /** `undefined` values are stored as `null`: "parsed before, not usable". */
  private readonly events = new GenerationMap<E | null>(GENERATION_SIZE);
  private readonly items = new GenerationMap<I>(GENERATION_SIZE);

  /** The event parsed under `key` before, else `parse()`'s result (kept for next time). */
  event(key: string, parse: () => E | undefined): E | undefined {
    const known = this.events.get(key);
    if (known !== undefined) return known ?? undefined;
    const parsed = parse();
    this.events.set(key, parsed ?? null);
    return parsed;
  }

  /** The item memo kept under `key`, if any. */
  item(key: string): I | undefined {
    return this.items.get(key);
  }

  rememberItem(key: string, memo: I): void {
    this.items.set(key, memo);
  }

  /** Entries held (tests, diagnostics). */
  get size(): number {
    return this.events.size + this.items.size;
  }
}

/** The JSON text of a value from `JSON.parse`: equal texts mean equal values. */
export function jsonKey(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * Bodies larger than this (bytes) are not remembered: a large body is an unfiltered list, which
 * changes on nearly every read, and fingerprinting it would cost more than it saves.
 */
export const MAX_MEMO_BODY_BYTES = 8_192;

/** What is kept of the last body of an endpoint: a fingerprint of its bytes less the timestamp, and what it gave. */
interface BodyPrint<T> {
  /** The bytes before the timestamp's value (none when there is none). */
  head: Buffer;
  /** Length and SHA-1 of the bytes after it. */
  tailLength: number;
  tailDigest: string;
  value: T;
}

/**
 * The last body of each endpoint (a poll's URL), and what parsing it gave. It works on the body's
 * bytes as they came, so a body given back is neither decoded nor copied into a string: equal
 * bytes are equal text, and JSON's structure is ASCII, which UTF-8 never uses inside a character.
 */
export class BodyMemo<T> {
  private readonly prints = new GenerationMap<BodyPrint<T>>(GENERATION_SIZE);

  /**
   * What `key`'s last body gave, when `body` is that body again but for the timestamp's value,
   * with the new value's JSON text (undefined when the body has no timestamp); else undefined.
   */
  reuse(key: string, body: Buffer): { value: T; stamp: string | undefined } | undefined {
    if (body.length > MAX_MEMO_BODY_BYTES) return undefined;
    const print = this.prints.get(key);
    if (!print) return undefined;
    const span = stampSpan(body);
    const tailStart = span ? span[1] : 0;
    const headLength = span ? span[0] : 0;
    if (body.length - tailStart !== print.tailLength || print.head.length !== headLength || print.head.compare(body, 0, headLength) !== 0) return undefined;
    if (hash('sha1', body.subarray(tailStart), 'base64') !== print.tailDigest) return undefined;
    return { value: print.value, stamp: span ? body.toString('utf8', span[0], span[1]) : undefined };
  }

  /** Remembers `body` as `key`'s last body and `value` as what it gave. */
  remember(key: string, body: Buffer, value: T): void {
    if (body.length > MAX_MEMO_BODY_BYTES) return;
    const span = stampSpan(body);
    const tailStart = span ? span[1] : 0;
    // The timestamp may be told apart only if nothing after it could be another top-level
    // "timestamp" (a later duplicate, even spelled with escapes, would be the one JSON.parse keeps).
    if (span && (body.indexOf(STAMP_KEY, tailStart) >= 0 || body.indexOf('\\u006', tailStart) >= 0 || body.indexOf('\\u007', tailStart) >= 0)) {
      this.prints.set(key, { head: EMPTY, tailLength: body.length, tailDigest: hash('sha1', body, 'base64'), value });
      return;
    }
    // A copy of the head: the body's buffer may be a slice of a larger one that must not be kept.
    const head = span ? Buffer.from(body.subarray(0, span[0])) : EMPTY;
    this.prints.set(key, { head, tailLength: body.length - tailStart, tailDigest: hash('sha1', body.subarray(tailStart), 'base64'), value });
  }
}

const EMPTY = Buffer.alloc(0);

/** Top-level fields looked at before giving up on finding the timestamp. */
const MAX_HEAD_FIELDS = 16;

/**
 * Where the value of the envelope's top-level `timestamp` lies in `body` (byte offsets), found by
 * reading the object's fields up to its first nested value (the item list); undefined when it is
 * not there, comes twice, or any key on the way is written with escapes.
 */
export function stampSpan(body: Buffer): [start: number, end: number] | undefined {
  let i = skipSpace(body, 0);
  if (body[i] !== OPEN_BRACE) return undefined;
  let found: [number, number] | undefined;
  for (let field = 0; field < MAX_HEAD_FIELDS; field++) {
    i = skipSpace(body, i + 1);
    if (body[i] !== QUOTE) break;
    const keyEnd = stringEnd(body, i);
    if (keyEnd < 0 || body.lastIndexOf(BACKSLASH, keyEnd) > i) return undefined;
    const isStamp = keyEnd - i === STAMP_KEY.length && body.indexOf(STAMP_KEY, i) === i;
    i = skipSpace(body, keyEnd);
    if (body[i] !== COLON) return undefined;
    i = skipSpace(body, i + 1);
    const first = body[i];
    if (first === OPEN_BRACE || first === OPEN_BRACKET) break;
    const valueEnd = first === QUOTE ? stringEnd(body, i) : primitiveEnd(body, i);
    if (valueEnd < 0) return undefined;
    if (isStamp) {
      if (found) return undefined;
      found = [i, valueEnd];
    }
    i = skipSpace(body, valueEnd);
    if (body[i] !== COMMA) break;
  }
  return found;
}

const STAMP_KEY = '"timestamp"';
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const QUOTE = 0x22;
const COLON = 0x3a;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(body: Buffer, from: number): number {
  let i = from;
  while (isSpace(body[i])) i++;
  return i;
}

/** The index just past the string that opens at `from` (a quote), or -1 when it does not close. */
function stringEnd(body: Buffer, from: number): number {
  for (let i = from + 1; i < body.length; i++) {
    const c = body[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return -1;
}

/** The index just past a number, true, false or null that starts at `from`; -1 when it runs to the end. */
function primitiveEnd(body: Buffer, from: number): number {
  for (let i = from; i < body.length; i++) {
    const c = body[i];
    if (c === COMMA || c === CLOSE_BRACE || isSpace(c)) return i;
  }
  return -1;
}
