/**
 * The bot's only session state: what a plain message from this user in this chat is expected
 * to answer (the access key, the secret, a stake amount, the id for /item or /event, a limited
 * leg, a hedge's odds, a /books value). Kept in memory, keyed by chat and user,
 * expiring on the injected clock. It never holds a secret: the secret is consumed by the
 * message handler that receives it.
 */
import type { Clock } from '../clock.js';
import type { Service } from '../service/services.js';
import type { BookValueOption } from './callback-data/books.js';

export type PendingInput =
  | { kind: 'connect-key'; service: Service }
  | { kind: 'connect-secret'; service: Service; accessKey: string }
  | { kind: 'stake-amount'; service: Service; itemId: string; ownerId: number }
  /** /item or /event sent without an id: the next message is the id. */
  | { kind: 'lookup-id'; what: 'item' | 'event' }
  /** `questionId`: the message asking it, whose buttons (a leg at its max, a staking mode) answer it too. */
  | { kind: 'leg-limit'; service: Service; itemId: string; ownerId: number; questionId?: number }
  | { kind: 'hedge-odds'; service: Service; itemId: string; ownerId: number; leg: number }
  /** /books' button for one setting of one bookmaker: the next message is its value. */
  | { kind: 'book-value'; bookmakerId: number; option: BookValueOption }
  /** The odds and stake taken for a leg (or a hedge) of a ledger position; `flow`: the ✏️ flow goes on to the next leg. */
  | { kind: 'ledger-leg'; positionId: string; leg: number; flow: boolean };

/** How long a question waits for its answer. */
export const PENDING_TTL_MS = 10 * 60_000;

export class PendingInputs {
  private readonly entries = new Map<string, { input: PendingInput; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = PENDING_TTL_MS,
  ) {}

  private static key(chatId: number, userId: number): string {
    return `${chatId}:${userId}`;
  }

  set(chatId: number, userId: number, input: PendingInput): void {
    this.prune();
    this.entries.set(PendingInputs.key(chatId, userId), { input, until: this.clock.now() + this.ttlMs });
  }

  /** The pending question, or undefined when none is open or it expired. */
  get(chatId: number, userId: number): PendingInput | undefined {
    const key = PendingInputs.key(chatId, userId);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.input;
  }

  /** Whether the user's secret is expected in any chat (no other question may replace it). */
  secretExpected(userId: number): boolean {
    for (const [key, entry] of this.entries) {
      if (entry.input.kind === 'connect-secret' && key.endsWith(`:${userId}`) && entry.until > this.clock.now()) return true;
    }
    return false;
  }

  clear(chatId: number, userId: number): boolean {
    return this.entries.delete(PendingInputs.key(chatId, userId));
  }

  /** Every pending question of a user in any chat is dropped (on /forget). */
  clearUser(userId: number): void {
    for (const key of [...this.entries.keys()]) {
      if (key.endsWith(`:${userId}`)) this.entries.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) if (entry.until <= now) this.entries.delete(key);
  }
}
