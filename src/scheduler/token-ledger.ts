/**
 * The token requests each key made in the last hour: the scheduler's hard guard on the token
 * limit. The service counts a rolling hour whatever happens to the bot, so the ledger can be
 * kept in a small file and read back at start: a restart does not hand out a fresh hour.
 *
 * Keys are stored as short SHA-256 digests: the file says nothing about whose requests they were.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { HOUR_MS } from './token-plan.js';

const fileSchema = z.object({
  version: z.literal(1),
  keys: z.record(z.string().regex(/^[0-9a-f]{16}$/), z.array(z.number()).max(10_000)),
});

const digest = (accessKey: string) => createHash('sha256').update(accessKey).digest('hex').slice(0, 16);

export class TokenLedger {
  private readonly byKey = new Map<string, number[]>();
  private dirty = false;
  private saving: Promise<void> | undefined;

  /** `file`: where the ledger survives restarts; without it, memory only. */
  constructor(private readonly file?: string) {}

  private times(accessKey: string, now: number): number[] {
    const id = digest(accessKey);
    let times = this.byKey.get(id);
    if (!times) {
      times = [];
      this.byKey.set(id, times);
    }
    while (times.length > 0 && times[0]! <= now - HOUR_MS) times.shift();
    return times;
  }

  /** Requests in the rolling hour up to `now`. */
  count(accessKey: string, now: number): number {
    return this.times(accessKey, now).length;
  }

  /** The oldest request still in the rolling hour. */
  oldest(accessKey: string, now: number): number | undefined {
    return this.times(accessKey, now)[0];
  }

  record(accessKey: string, at: number): void {
    const times = this.times(accessKey, at);
    let i = times.length;
    while (i > 0 && times[i - 1]! > at) i--;
    times.splice(i, 0, at);
    this.dirty = true;
  }

  /** Takes back a record of a request that was never sent. */
  unrecord(accessKey: string, at: number): void {
    const times = this.byKey.get(digest(accessKey));
    const i = times?.lastIndexOf(at) ?? -1;
    if (times && i >= 0) {
      times.splice(i, 1);
      this.dirty = true;
    }
  }

  /**
   * Reads the file written by an earlier run (synchronously: it is small, and start-up must know
   * the last hour before the first read). A missing or unreadable file means an empty ledger.
   */
  load(now: number): { loaded: number; problem?: string } {
    if (!this.file) return { loaded: 0 };
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      return missing ? { loaded: 0 } : { loaded: 0, problem: 'the token ledger file could not be read' };
    }
    let parsed: z.infer<typeof fileSchema>;
    try {
      parsed = fileSchema.parse(JSON.parse(text));
    } catch {
      return { loaded: 0, problem: 'the token ledger file is not valid; starting with an empty one' };
    }
    let loaded = 0;
    for (const [id, times] of Object.entries(parsed.keys)) {
      const recent = times.filter((t) => Number.isFinite(t) && t > now - HOUR_MS && t <= now + HOUR_MS).sort((a, b) => a - b);
      if (recent.length === 0) continue;
      this.byKey.set(id, recent);
      loaded += recent.length;
    }
    return { loaded };
  }

  /** Writes the last hour to the file when anything changed (temp file + rename, mode 0600). */
  async save(now: number): Promise<void> {
    if (!this.file) return;
    // One write at a time: a caller arriving during a write waits for it, then writes only if still needed.
    // Its failure is not ours to report: the caller of that save got the error (and `dirty` is set again).
    while (this.saving) await this.saving.catch(() => undefined);
    if (!this.dirty) return;
    this.dirty = false;
    const keys: Record<string, number[]> = {};
    for (const [id, times] of this.byKey) {
      const recent = times.filter((t) => t > now - HOUR_MS);
      if (recent.length > 0) keys[id] = recent;
      else this.byKey.delete(id);
    }
    const file = this.file;
    // A temp file of this process's own: another process writing the same ledger (the doctor, a
    // second process on this DATA_DIR) never renames a half-written file of ours into place.
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    this.saving = (async () => {
      try {
        await writeFile(temp, JSON.stringify({ version: 1, keys }), { mode: 0o600 });
        await rename(temp, file);
      } catch (err) {
        this.dirty = true;
        await rm(temp, { force: true }).catch(() => undefined);
        throw err;
      } finally {
        this.saving = undefined;
      }
    })();
    return this.saving;
  }
}
