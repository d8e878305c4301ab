/**
 * What the logger does to every value before it is written: secrets cut by value and by pattern,
 * message texts dropped, and the value copied into plain, bounded data.
 *
 * Named paths were not enough: grammY's HttpError keeps the inner FetchError under `error`, whose
 * message is `request to https://…/bot<id>:<TOKEN>/sendMessage failed`, and a GrammyError keeps
 * the whole `sendMessage` payload with the user's text. So every string at any depth (error,
 * cause, payload, response, arrays, AggregateError's errors, own enumerable properties) passes
 * through `scrubText`, which cuts:
 *  - by value: the secrets this process knows (the bot token, the webhook secret, the Redis
 *    password, ENCRYPTION_KEY, and the users' access secrets the service accepted or the vault
 *    opened), also in their URL- and JSON-escaped forms;
 *  - by pattern: `/bot<id>:<token>` and bare bot tokens, `ApiKey …` / `Bearer …`, and the
 *    password of any `scheme://user:password@` URL (a REDIS_URL in an ioredis error).
 * Cycles print as `[circular]`; depth, keys, array items, string length and the number of values
 * copied are capped, so a socket or a huge response cannot stall a log call.
 */

/** The secrets one process knows, cut from every log line by value. */
export interface SecretRegistry {
  /**
   * The operator's own secrets (the bot token, the webhook secret, ENCRYPTION_KEY, HEALTH_TOKEN,
   * the Redis password): 8 characters or more, never evicted, and also cut from whole finished lines.
   */
  pin(...values: (string | undefined)[]): void;
  /**
   * A user's access secret, once the service has accepted the pair or a stored one is opened: at
   * least MIN_USER_SECRET_LENGTH characters, the newest MAX_USER_SECRETS kept. Cut inside logged
   * values only, never from a finished line, so whatever a user types cannot cut JSON syntax.
   */
  add(...values: (string | undefined)[]): void;
  /** `text` with every known secret (and its URL- and JSON-escaped forms) replaced by `[redacted]`. */
  cut(text: string): string;
  /** `text` with the pinned secrets cut: for a finished log line. */
  cutPinned(text: string): string;
  readonly size: number;
}

/** A secret shorter than this is not cut by value (it would cut ordinary words); patterns still apply. */
export const MIN_SECRET_LENGTH = 8;
/**
 * A user's secret shorter than this is not registered: an access secret is a long random string,
 * and a short word registered by value would cut that word from every later line.
 */
export const MIN_USER_SECRET_LENGTH = 16;
/** The newest this many users' secrets are kept: a bound on memory and on the work per log line. */
const MAX_USER_SECRETS = 4096;

/** Cuts one set of values, found by their first MIN_SECRET_LENGTH characters. */
function createCutter() {
  const values = new Set<string>();
  // Each form of each secret, found by its first MIN_SECRET_LENGTH characters: one lookup per
  // position of a text, however many secrets (a regex of thousands of alternatives took 0.2 ms a string).
  let byPrefix: Map<string, string[]> | null = null;
  const index = () => {
    const map = new Map<string, string[]>();
    for (const v of values) {
      for (const form of new Set([v, encodeURIComponent(v), JSON.stringify(v).slice(1, -1)])) {
        const prefix = form.slice(0, MIN_SECRET_LENGTH);
        const list = map.get(prefix) ?? [];
        list.push(form);
        // Longest first, so a secret that contains another is cut whole.
        list.sort((a, b) => b.length - a.length);
        map.set(prefix, list);
      }
    }
    return map;
  };
  return {
    values,
    add(value: string, max: number) {
      // Re-adding moves a value to the newest end, so the ones in use stay.
      values.delete(value);
      values.add(value);
      byPrefix = null;
      while (values.size > max) values.delete(values.values().next().value as string);
    },
    cut(text: string): string {
      if (values.size === 0 || text.length < MIN_SECRET_LENGTH) return text;
      byPrefix ??= index();
      let out = '';
      let from = 0;
      for (let i = 0; i + MIN_SECRET_LENGTH <= text.length; ) {
        const found = byPrefix.get(text.slice(i, i + MIN_SECRET_LENGTH))?.find((form) => text.startsWith(form, i));
        if (found === undefined) {
          i++;
          continue;
        }
        out += `${text.slice(from, i)}[redacted]`;
        i += found.length;
        from = i;
      }
      return from === 0 ? text : out + text.slice(from);
    },
  };
}

export function createSecretRegistry(): SecretRegistry {
  const pinned = createCutter();
  const users = createCutter();
  return {
    pin(...added) {
      for (const value of added) {
        if (value !== undefined && value.length >= MIN_SECRET_LENGTH) pinned.add(value, Number.POSITIVE_INFINITY);
      }
    },
    add(...added) {
      for (const value of added) {
        if (value === undefined || value.length < MIN_USER_SECRET_LENGTH || pinned.values.has(value)) continue;
        users.add(value, MAX_USER_SECRETS);
      }
    },
    cut: (text) => users.cut(pinned.cut(text)),
    cutPinned: (text) => pinned.cut(text),
    get size() {
      return pinned.values.size + users.values.size;
    },
  };
}

/**
 * The process's registry: main pins the settings' secrets; a user's access secret is added once
 * the service accepts it (connect) or when the vault opens a stored one. One per process, because every logger of the process must cut the same values.
 */
export const knownSecrets: SecretRegistry = createSecretRegistry();

/** The secrets among the settings: what main pins before the first log line. */
export function secretsOfSettings(settings: {
  BOT_TOKEN?: string | undefined;
  TELEGRAM_WEBHOOK_SECRET?: string | undefined;
  ENCRYPTION_KEY?: string | undefined;
  REDIS_URL?: string | undefined;
  HEALTH_TOKEN?: string | undefined;
}): (string | undefined)[] {
  return [settings.BOT_TOKEN, settings.TELEGRAM_WEBHOOK_SECRET, settings.ENCRYPTION_KEY, settings.HEALTH_TOKEN, ...urlCredentials(settings.REDIS_URL)];
}

/** The user name and password of a URL (decoded), when it has them. */
export function urlCredentials(url: string | undefined): string[] {
  if (url === undefined) return [];
  try {
    const parsed = new URL(url);
    const out: string[] = [];
    if (parsed.password !== '') out.push(parsed.password, decodeURIComponent(parsed.password));
    return out;
  } catch {
    return [];
  }
}

/** Cuts credentials by pattern: bot tokens, `ApiKey …`/`Bearer …` values, URL passwords. */
export function cutPatterns(text: string): string {
  return (
    text
      // `/bot<id>:<anything>` in a Bot API URL, however short the rest (a clipped message still hides it).
      .replace(/\bbot\d+:[^/\s"'?#]*/g, 'bot[redacted-bot-token]')
      .replace(/(?<!\d)\d{5,}:[\w-]{20,}/g, '[redacted-bot-token]')
      .replace(/\b(ApiKey|Bearer)\s+[^\s"',;]+/gi, '$1 [redacted]')
      // scheme://user:password@host → scheme://user:[redacted]@host (redis://, rediss://, http://, …).
      .replace(/\b([a-z][a-z0-9+.-]*:\/\/[^/\s:@"']*):[^/\s@"']*@/gi, '$1:[redacted]@')
  );
}

export interface ScrubLimits {
  depth: number;
  keys: number;
  items: number;
  stringLength: number;
  /** Values copied in all, for one log call. */
  nodes: number;
}

export const DEFAULT_SCRUB_LIMITS: ScrubLimits = { depth: 8, keys: 50, items: 50, stringLength: 4000, nodes: 2000 };

/** Keys whose string value is a secret whatever it looks like (`accessToken`, `TELEGRAM_WEBHOOK_SECRET`; not `tokenScope`). */
const SECRET_KEY = /(secret|token|password|passwd|authorization|api[-_]?key|encryption_?key|cookie)$/i;
/** Keys whose string value is a person's message text: its length is kept, not its words. */
const TEXT_KEY = /^(text|caption|message_text|query|question|explanation|quote)$/;
/** What stays of a Bot API call's `payload` (a GrammyError's): ids and switches, never text. */
const SAFE_PAYLOAD_KEYS = new Set([
  'chat_id',
  'message_id',
  'from_chat_id',
  'message_thread_id',
  'callback_query_id',
  'inline_query_id',
  'user_id',
  'parse_mode',
  'disable_notification',
  'show_alert',
  'offset',
  'limit',
  'timeout',
  'cache_time',
  'is_personal',
]);

/**
 * A plain, bounded copy of `value` with every string scrubbed (`cut` by value, then by pattern)
 * and message texts dropped; errors become `{ type, message, stack, …props, cause, errors }`.
 */
export function scrubValue(value: unknown, cut: (text: string) => string, limits: ScrubLimits = DEFAULT_SCRUB_LIMITS): unknown {
  let nodes = 0;
  const onPath = new Set<object>();
  const text = (s: string) => clip(cutPatterns(cut(s)), limits.stringLength);

  const walk = (v: unknown, depth: number, key: string | null): unknown => {
    if (++nodes > limits.nodes) return '[cut: too large]';
    switch (typeof v) {
      case 'string':
        if (key !== null && SECRET_KEY.test(key)) return '[redacted]';
        if (key !== null && TEXT_KEY.test(key)) return `[text: ${v.length} chars]`;
        return text(v);
      case 'number':
      case 'boolean':
        return v;
      case 'bigint':
        return v.toString();
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
    }
    if (v === null) return null;
    const obj = v as object;
    if (onPath.has(obj)) return '[circular]';
    if (depth >= limits.depth) return '[cut: too deep]';
    if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
    if (obj instanceof URL) return text(obj.href);
    if (ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer) return `[${obj.byteLength} bytes]`;
    onPath.add(obj);
    try {
      if (isErrorLike(obj)) return walkError(obj, depth);
      if (Array.isArray(obj) || obj instanceof Set) return walkList([...(obj as Iterable<unknown>)], depth);
      if (obj instanceof Map) return walkEntries([...obj.entries()].map(([k, val]) => [String(k), val]), depth, false);
      if (key === 'payload') return walkEntries(Object.entries(obj), depth, true);
      return walkEntries(ownEntries(obj), depth, false);
    } finally {
      onPath.delete(obj);
    }
  };

  const walkList = (list: unknown[], depth: number): unknown[] => {
    const out = list.slice(0, limits.items).map((item) => walk(item, depth + 1, null));
    if (list.length > limits.items) out.push(`[cut: ${list.length - limits.items} more]`);
    return out;
  };

  const walkEntries = (entries: [string, unknown][], depth: number, payload: boolean): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, val] of entries.slice(0, limits.keys)) {
      if (payload && !SAFE_PAYLOAD_KEYS.has(k)) {
        out[k] = '[dropped]';
        continue;
      }
      const copied = walk(val, depth + 1, k);
      if (copied !== undefined) out[k] = copied;
    }
    if (entries.length > limits.keys) out['[cut]'] = `${entries.length - limits.keys} more keys`;
    return out;
  };

  const walkError = (err: ErrorLike, depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {
      type: typeof err.constructor === 'function' && err.constructor.name !== '' ? err.constructor.name : String(err.name ?? 'Error'),
      message: text(String(err.message ?? '')),
    };
    if (typeof err.stack === 'string') out.stack = text(err.stack);
    for (const [k, val] of ownEntries(err).slice(0, limits.keys)) {
      if (k === 'message' || k === 'stack' || k in out) continue;
      const copied = walk(val, depth + 1, k);
      if (copied !== undefined) out[k] = copied;
    }
    // Not enumerable on built-in errors, and where the token hides most often.
    if (err.cause !== undefined && !('cause' in out)) out.cause = walk(err.cause, depth + 1, 'cause');
    if (Array.isArray(err.errors) && !('errors' in out)) out.errors = walkList(err.errors, depth);
    return out;
  };

  return walk(value, 0, null);
}

/** An error's message with the messages of what it wraps (`error`, `cause`, `errors`), for one pretty line. Input already scrubbed. */
export function messageWithInner(err: unknown, depth = 0): string {
  if (typeof err !== 'object' || err === null || depth > 4) return '';
  const e = err as Record<string, unknown>;
  const own = typeof e.message === 'string' ? e.message : '';
  const inner = [e.error, e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]
    .map((x) => messageWithInner(x, depth + 1))
    .filter((m) => m !== '');
  return inner.length === 0 ? own : `${own} (caused by: ${inner.join('; ')})`;
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  stack?: unknown;
  cause?: unknown;
  errors?: unknown;
  constructor: { name: string };
}

function isErrorLike(v: object): v is ErrorLike {
  return v instanceof Error || (typeof (v as ErrorLike).message === 'string' && typeof (v as ErrorLike).stack === 'string');
}

/** Own enumerable string keys with their values; a throwing getter gives a note, not a failed log call. */
function ownEntries(obj: object): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const k of Object.keys(obj)) {
    try {
      out.push([k, (obj as Record<string, unknown>)[k]]);
    } catch {
      out.push([k, '[unreadable]']);
    }
  }
  return out;
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…[${s.length - max} more chars]`;
}

