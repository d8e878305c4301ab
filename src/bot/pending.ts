/**
 * The bot's only session state: what a plain message from this user in this chat is expected
 * to answer (the access key, the secret, a stake amount, the id for /item or /event, a limited
 * leg, a hedge's odds, a /books value). Kept in memory, keyed by chat and user,
 * expiring on the injected clock. It never holds a secret: the secret is consumed by the
 * message handler that receives it.
 *
 * A secret question that expires unanswered leaves a marker for an hour (chat, user, time only):
 * a user who comes back late and pastes the secret anyway must still have it deleted.
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
/** How long after an unanswered secret question expired a pasted secret is still deleted. */
export const LATE_SECRET_MS = 60 * 60_000;

export class PendingInputs {
  private readonly entries = new Map<string, { input: PendingInput; until: number }>();
  /** Expired secret questions: key → the time the marker ends. Holds nothing of the question. */
  private readonly lateSecrets = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = PENDING_TTL_MS,
  ) {}

  private static key(chatId: number, userId: number): string {
    return `${chatId}:${userId}`;
  }

  set(chatId: number, userId: number, input: PendingInput): void {
    this.prune();
    this.lateSecrets.delete(PendingInputs.key(chatId, userId));
    this.entries.set(PendingInputs.key(chatId, userId), { input, until: this.clock.now() + this.ttlMs });
  }

  /** The pending question, or undefined when none is open or it expired. */
  get(chatId: number, userId: number): PendingInput | undefined {
    const key = PendingInputs.key(chatId, userId);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.clock.now()) {
      this.expire(key, entry);
      return undefined;
    }
    return entry.input;
  }

  /**
   * Whether a secret question of this chat and user expired unanswered less than
   * LATE_SECRET_MS ago (false while a question is open: that question decides).
   */
  lateSecretWatch(chatId: number, userId: number): boolean {
    const key = PendingInputs.key(chatId, userId);
    if (this.get(chatId, userId) !== undefined) return false;
    const until = this.lateSecrets.get(key);
    if (until === undefined) return false;
    if (until <= this.clock.now()) {
      this.lateSecrets.delete(key);
      return false;
    }
    return true;
  }

  /** Whether the user's secret is expected in any chat (no other question may replace it). */
  secretExpected(userId: number): boolean {
    for (const [key, entry] of this.entries) {
      if (entry.input.kind === 'connect-secret' && key.endsWith(`:${userId}`) && entry.until > this.clock.now()) return true;
    }
    return false;
  }

  /** Ends the open question; an expired secret question's marker stays (another command is no sign the secret is safe). */
  clear(chatId: number, userId: number): boolean {
    return this.entries.delete(PendingInputs.key(chatId, userId));
  }

  /** The marker ends early once a secret has been given (or a new question is asked). */
  endLateSecret(chatId: number, userId: number): void {
    this.lateSecrets.delete(PendingInputs.key(chatId, userId));
  }

  /** Every pending question of a user in any chat is dropped (on /forget). */
  clearUser(userId: number): void {
    for (const key of [...this.entries.keys()]) {
      if (key.endsWith(`:${userId}`)) this.entries.delete(key);
    }
    for (const key of [...this.lateSecrets.keys()]) {
      if (key.endsWith(`:${userId}`)) this.lateSecrets.delete(key);
    }
  }

  get size(): number {
    return this.entries.size + this.lateSecrets.size;
  }

  /** An expired entry goes; an unanswered secret question leaves its marker. */
  private expire(key: string, entry: { input: PendingInput; until: number }): void {
    this.entries.delete(key);
    const markerUntil = entry.until + LATE_SECRET_MS;
    if (entry.input.kind === 'connect-secret' && markerUntil > this.clock.now()) this.lateSecrets.set(key, markerUntil);
  }

  private prune(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) if (entry.until <= now) this.expire(key, entry);
    for (const [key, until] of this.lateSecrets) if (until <= now) this.lateSecrets.delete(key);
  }
}
