/**
 * The cluster's prints (`src/ledger/prints.ts`) in Redis: one string key per print,
 * `{p}print:{userId}:{id}`, holding its JSON and expiring PRINT_TTL_MS after its `sentAt` (counted
 * on the store's clock when written), so Redis itself keeps them bounded. A worker's notifier
 * prints, a front is pressed: `get` always reads Redis, and checks the time again on the store's
 * clock. `put` is written behind (the notifier never waits); `flush` waits for the writes.
 * For `npm run migrate`, `all` reads every print (SCAN) and `writeCommands` writes them back.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { printExpired, PRINT_TTL_MS, printSchema, type AlertPrint } from '../ledger/prints.js';
import type { PrintStore } from './port.js';

/** `print`'s stored JSON and its time to live (ms) at `now`; undefined when it is already expired. */
function storedPrint(print: AlertPrint, now: number): [json: string, ttlMs: number] | undefined {
  const ttl = print.sentAt + PRINT_TTL_MS - now;
  return ttl > 0 ? [JSON.stringify(print), Math.ceil(ttl)] : undefined;
}

/** The commands that keep `print` under `key` until its expiry; none when it is already expired. */
export function writePrintCommand(pipeline: ChainableCommander, key: string, print: AlertPrint, now: number): void {
  const stored = storedPrint(print, now);
  if (stored) pipeline.set(key, stored[0], 'PX', stored[1]);
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

export class RedisPrints implements PrintStore {
  private readonly writes = new Set<Promise<unknown>>();
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
    const stored = storedPrint(p, this.opts.clock.now());
    // One command, not a pipeline of one: a pipeline costs more to build than its command.
    if (stored) this.track(this.opts.redis.set(this.key(userId, p.id), stored[0], 'PX', stored[1]));
  }

  async get(userId: number, id: string): Promise<AlertPrint | undefined> {
    const text = await this.opts.redis.get(this.key(userId, id));
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
    while (this.writes.size > 0) await Promise.all(this.writes);
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
