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
 * no `JSON.parse` and no item looked at.
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
 * Bodies larger than this are not remembered: a large body is an unfiltered list, which changes
 * on nearly every read, and fingerprinting it would cost more than it saves.
 */
export const MAX_MEMO_BODY_CHARS = 8_192;

/** What is kept of the last body of an endpoint: a fingerprint of its text less the timestamp, and what it gave. */
interface BodyPrint<T> {
  /** The text before the timestamp's value (all of it when there is none). */
  head: string;
  /** Length and SHA-1 of the text after it. */
  tailLength: number;
  tailDigest: string;
  value: T;
}

/** The last body of each endpoint (a poll's URL), and what parsing it gave. */
export class BodyMemo<T> {
  private readonly prints = new GenerationMap<BodyPrint<T>>(GENERATION_SIZE);

  /**
   * What `key`'s last body gave, when `text` is that body again but for the timestamp's value,
   * with the new value's JSON text (undefined when the body has no timestamp); else undefined.
   */
  reuse(key: string, text: string): { value: T; stamp: string | undefined } | undefined {
    if (text.length > MAX_MEMO_BODY_CHARS) return undefined;
    const print = this.prints.get(key);
    if (!print) return undefined;
    const span = stampSpan(text);
    const tailStart = span ? span[1] : 0;
    if (text.length - tailStart !== print.tailLength || !text.startsWith(print.head) || print.head.length !== (span ? span[0] : 0)) return undefined;
    if (hash('sha1', text.slice(tailStart), 'base64') !== print.tailDigest) return undefined;
    return { value: print.value, stamp: span ? text.slice(span[0], span[1]) : undefined };
  }

  /** Remembers `text` as `key`'s last body and `value` as what it gave. */
  remember(key: string, text: string, value: T): void {
    if (text.length > MAX_MEMO_BODY_CHARS) return;
    const span = stampSpan(text);
    const tail = span ? text.slice(span[1]) : text;
    // The timestamp may be told apart only if nothing after it could be another top-level
    // "timestamp" (a later duplicate, even spelled with escapes, would be the one JSON.parse keeps).
    if (span && (tail.includes('"timestamp"') || tail.includes('\\u006') || tail.includes('\\u007'))) {
      this.prints.set(key, { head: '', tailLength: text.length, tailDigest: hash('sha1', text, 'base64'), value });
      return;
    }
    this.prints.set(key, { head: span ? text.slice(0, span[0]) : '', tailLength: tail.length, tailDigest: hash('sha1', tail, 'base64'), value });
  }
}

/** Top-level fields looked at before giving up on finding the timestamp. */
const MAX_HEAD_FIELDS = 16;

/**
 * Where the value of the envelope's top-level `timestamp` lies in `text`, found by reading the
 * object's fields up to its first nested value (the item list); undefined when it is not there,
 * comes twice, or any key on the way is written with escapes.
 */
export function stampSpan(text: string): [start: number, end: number] | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  let found: [number, number] | undefined;
  for (let field = 0; field < MAX_HEAD_FIELDS; field++) {
    i = skipSpace(text, i + 1);
    if (text.charCodeAt(i) !== QUOTE) break;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0 || text.lastIndexOf('\\', keyEnd) > i) return undefined;
    const isStamp = keyEnd - i === STAMP_KEY.length && text.startsWith(STAMP_KEY, i);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipSpace(text, i + 1);
    const first = text.charCodeAt(i);
    if (first === OPEN_BRACE || first === OPEN_BRACKET) break;
    const valueEnd = first === QUOTE ? stringEnd(text, i) : primitiveEnd(text, i);
    if (valueEnd < 0) return undefined;
    if (isStamp) {
      if (found) return undefined;
      found = [i, valueEnd];
    }
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) !== COMMA) break;
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

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(text: string, from: number): number {
  let i = from;
  while (isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string that opens at `from` (a quote), or -1 when it does not close. */
function stringEnd(text: string, from: number): number {
  for (let i = from + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return -1;
}

/** The index just past a number, true, false or null that starts at `from`; -1 when it runs to the end. */
function primitiveEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_BRACE || isSpace(c)) return i;
  }
  return -1;
}
