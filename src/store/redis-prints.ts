/**
 * The cluster's prints (`src/ledger/prints.ts`) in Redis: one string key per print,
 * `{p}print:{userId}:{id}`, holding its JSON and expiring PRINT_TTL_MS after its `sentAt` (counted
 * on the store's clock when written), so Redis itself keeps them bounded. A worker's notifier
 * prints, a front is pressed: `get` reads Redis (or what this process put and has not written yet),
 * and checks the time again on the store's clock. `put` is written behind (the notifier never
 * waits), the prints of PRINT_GATHER_MS in one pipeline; `flush` writes them and waits.
 * For `npm run migrate`, `all` reads every print (SCAN) and `writeCommands` writes them back.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { printExpired, PRINT_TTL_MS, printSchema, type AlertPrint } from '../ledger/prints.js';
import type { PrintStore } from './port.js';

/** The time to live (ms, whole) at `now` of a print sent at `sentAt`; 0 or less: expired. */
function ttlAt(sentAt: number, now: number): number {
  return Math.ceil(sentAt + PRINT_TTL_MS - now);
}

/** The commands that keep `print` under `key` until its expiry; none when it is already expired. */
export function writePrintCommand(pipeline: ChainableCommander, key: string, print: AlertPrint, now: number): void {
  const ttl = ttlAt(print.sentAt, now);
  if (ttl > 0) pipeline.set(key, JSON.stringify(print), 'PX', ttl);
}

/** Every key matching `pattern` (SCAN, in pages), each page handed to `page`. */
export async function scanKeys(redis: Redis, pattern: string, page: (keys: string[]) => Promise<void>): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    cursor = next;
    if (keys.length > 0) await page(keys);
  } while (cursor !== '0');
}

/** How long a print waits to be written with the others put meanwhile (ms). */
export const PRINT_GATHER_MS = 50;

export class RedisPrints implements PrintStore {
  private readonly writes = new Set<Promise<unknown>>();
  /** Prints put and not yet written, by key: their JSON and when they were sent. */
  private readonly pending = new Map<string, { json: string; sentAt: number }>();
  private gatherTimer: NodeJS.Timeout | undefined;
  private failures = 0;

  /** `prefix`: the layout's `{p}print:`. */
  constructor(private readonly opts: { redis: Redis; prefix: string; clock: Clock; log: Logger; guard: () => void }) {}

  private key(userId: number, id: string): string {
    return `${this.opts.prefix}${userId}:${id}`;
  }

  healthy(): boolean {
    return this.failures === 0;
  }

  put(userId: number, print: AlertPrint): void {
    this.opts.guard();
    const p = printSchema.parse(print);
    // Gathered for a moment: a busy worker prints at every alert, and a write each was 4 % of its CPU.
    this.pending.set(this.key(userId, p.id), { json: JSON.stringify(p), sentAt: p.sentAt });
    this.gatherTimer ??= setTimeout(() => this.writePending(), PRINT_GATHER_MS);
  }

  async get(userId: number, id: string): Promise<AlertPrint | undefined> {
    const key = this.key(userId, id);
    const text = this.pending.get(key)?.json ?? (await this.opts.redis.get(key));
    if (text === null) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined;
    }
    const parsed = printSchema.safeParse(raw);
    if (!parsed.success) {
      this.opts.log.warn({ userId }, 'a stored print failed the schema and was left out');
      return undefined;
    }
    return printExpired(parsed.data, this.opts.clock.now()) ? undefined : parsed.data;
  }

  deleteUser(userId: number): void {
    const { redis } = this.opts;
    const own = `${this.opts.prefix}${userId}:`;
    for (const key of this.pending.keys()) if (key.startsWith(own)) this.pending.delete(key);
    this.track(scanKeys(redis, `${this.opts.prefix}${userId}:*`, async (keys) => void (await redis.del(...keys))));
  }

  /** Every print, by `${userId}:${id}` (for `snapshot`). */
  async all(): Promise<Record<string, AlertPrint>> {
    const out: Record<string, AlertPrint> = {};
    const now = this.opts.clock.now();
    const start = this.opts.prefix.length;
    await scanKeys(this.opts.redis, `${this.opts.prefix}*`, async (page) => {
      const texts = await this.opts.redis.mget(...page);
      page.forEach((key, j) => {
        try {
          const parsed = printSchema.safeParse(JSON.parse(texts[j] ?? 'null'));
          if (parsed.success && !printExpired(parsed.data, now)) out[key.slice(start)] = parsed.data;
        } catch {
          // A broken value is left out, as a broken record is.
        }
      });
    });
    return out;
  }

  async flush(): Promise<void> {
    this.writePending();
    while (this.writes.size > 0) await Promise.all(this.writes);
  }

  /** The prints put since the last write, in one pipeline. */
  private writePending(): void {
    clearTimeout(this.gatherTimer);
    this.gatherTimer = undefined;
    if (this.pending.size === 0) return;
    const now = this.opts.clock.now();
    const pipeline = this.opts.redis.pipeline();
    for (const [key, { json, sentAt }] of this.pending) {
      const ttl = ttlAt(sentAt, now);
      if (ttl > 0) pipeline.set(key, json, 'PX', ttl);
    }
    this.pending.clear();
    if (pipeline.length === 0) return;
    this.track(pipeline.exec().then((results) => {
      const failed = results?.find(([err]) => err !== null);
      if (failed) throw failed[0];
    }));
  }

  private track(write: Promise<unknown>): void {
    const settled = write.then(
      () => {
        this.failures = 0;
      },
      (err: unknown) => {
        this.failures += 1;
        this.opts.log.warn({ err }, 'writing a print to Redis failed');
      },
    );
    this.writes.add(settled);
    void settled.finally(() => this.writes.delete(settled));
  }
}
