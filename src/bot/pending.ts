/**
 * The bot's only session state: what a plain message from this user in this chat is expected
 * to answer (the access key, the secret, a stake amount, the id for /item or /event, a limited
 * leg, a hedge's odds, a /books value). Keyed by chat and user, expiring. It never holds a
 * secret: the secret is consumed by the message handler that receives it.
 *
 * A secret question that expires unanswered leaves a marker for an hour (chat, user, time only):
 * a user who comes back late and pastes the secret anyway must still have it deleted.
 *
 * `PendingStore` is the seam: `PendingInputs` here keeps it in this process's memory on the
 * injected clock (the embedded bot); every front of a cluster shares one in Redis
 * (src/cluster/shared-pending.ts), so a secret pasted on another front than the one that asked
 * for it is still known as one. The interface is async for that one; a call that cannot reach
 * the shared state rejects with `StateUnavailableError` (src/bot/state-unavailable.ts).
 */
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { SERVICES, type Service } from '../service/services.js';
import { BOOK_VALUE_OPTIONS, type BookValueOption } from './callback-data/books.js';

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
  /**
   * The odds and stake taken for a leg (or a hedge) of a ledger position; `flow`: the ✏️ flow goes on to the next leg;
   * `newBookmaker`: a digest of a typed bookmaker the dictionaries do not know, recorded as typed if sent again.
   */
  | {
      kind: 'ledger-leg';
      positionId: string;
      leg: number;
      flow: boolean;
      newBookmaker?: string;
      /** The print the position came from (src/ledger/prints.ts): later legs are re-solved around answered ones. */
      printId?: string;
      /** The message printed no stakes: the stake placed is asked for. */
      unprinted?: boolean;
      /** Stakes by leg, re-solved around the legs answered: what ✅ on a later leg keeps. */
      suggest?: number[];
    }
  /** ✏️ Edit on a leg of a position (settled or not): the odds, stake and maybe bookmaker to correct it to. */
  | { kind: 'ledger-fix'; positionId: string; leg: number }
  /** /add's guided questions: the step asked now and the answers so far. */
  | { kind: 'ledger-add'; step: AddStep; draft: AddDraft };

export const ADD_STEPS = ['book', 'market', 'price', 'side', 'event'] as const;
export type AddStep = (typeof ADD_STEPS)[number];
const addDraftSchema = z.object({
  book: z.string().max(64).optional(),
  /** The digest of a bookmaker name the dictionaries do not know, typed once: the same name again records it as typed. */
  newBook: z.string().regex(/^[0-9a-f]{16}$/).optional(),
  commission: z.number().min(0).max(0.5).optional(),
  market: z.string().max(120).optional(),
  odds: z.number().gt(1).max(1_000).optional(),
  stake: z.number().gt(0).max(100_000_000).optional(),
  lay: z.boolean().optional(),
});
export type AddDraft = z.infer<typeof addDraftSchema>;

const service = z.enum(SERVICES);
const id = z.number().int();
/** A pending question read back from a shared store: checked, never trusted. */
export const pendingInputSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('connect-key'), service }),
  z.object({ kind: z.literal('connect-secret'), service, accessKey: z.string().min(1).max(128) }),
  z.object({ kind: z.literal('stake-amount'), service, itemId: z.string(), ownerId: id }),
  z.object({ kind: z.literal('lookup-id'), what: z.enum(['item', 'event']) }),
  z.object({ kind: z.literal('leg-limit'), service, itemId: z.string(), ownerId: id, questionId: id.optional() }),
  z.object({ kind: z.literal('hedge-odds'), service, itemId: z.string(), ownerId: id, leg: id }),
  z.object({ kind: z.literal('book-value'), bookmakerId: id, option: z.enum(BOOK_VALUE_OPTIONS) }),
  z.object({
    kind: z.literal('ledger-leg'),
    positionId: z.string(),
    leg: id,
    flow: z.boolean(),
    newBookmaker: z.string().regex(/^[0-9a-f]{16}$/).optional(),
    printId: z.string().max(12).optional(),
    unprinted: z.boolean().optional(),
    suggest: z.array(z.number().min(0)).max(16).optional(),
  }),
  z.object({ kind: z.literal('ledger-fix'), positionId: z.string(), leg: id }),
  z.object({ kind: z.literal('ledger-add'), step: z.enum(ADD_STEPS), draft: addDraftSchema }),
]) satisfies z.ZodType<PendingInput>;

/** How long a question waits for its answer. */
export const PENDING_TTL_MS = 10 * 60_000;
/** How long after an unanswered secret question expired a pasted secret is still deleted. */
export const LATE_SECRET_MS = 60 * 60_000;

/** Where the open questions are kept (see the header): every method may reject with StateUnavailableError. */
export interface PendingStore {
  set(chatId: number, userId: number, input: PendingInput): Promise<void>;
  /** The pending question, or undefined when none is open or it expired. */
  get(chatId: number, userId: number): Promise<PendingInput | undefined>;
  /**
   * Whether a secret question of this chat and user expired unanswered less than
   * LATE_SECRET_MS ago (false while a question is open: that question decides).
   */
  lateSecretWatch(chatId: number, userId: number): Promise<boolean>;
  /** Whether the user's secret is expected in any chat (no other question may replace it). */
  secretExpected(userId: number): Promise<boolean>;
  /** Ends the open question (true when one was open); an expired secret question's marker stays. */
  clear(chatId: number, userId: number): Promise<boolean>;
  /** The marker ends early once a secret has been given. */
  endLateSecret(chatId: number, userId: number): Promise<void>;
  /** Every pending question and marker of a user in any chat is dropped (on /forget). */
  clearUser(userId: number): Promise<void>;
}

export class PendingInputs implements PendingStore {
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

  async set(chatId: number, userId: number, input: PendingInput): Promise<void> {
    this.prune();
    this.lateSecrets.delete(PendingInputs.key(chatId, userId));
    this.entries.set(PendingInputs.key(chatId, userId), { input, until: this.clock.now() + this.ttlMs });
  }

  async get(chatId: number, userId: number): Promise<PendingInput | undefined> {
    return this.current(chatId, userId);
  }

  private current(chatId: number, userId: number): PendingInput | undefined {
    const key = PendingInputs.key(chatId, userId);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.clock.now()) {
      this.expire(key, entry);
      return undefined;
    }
    return entry.input;
  }

  async lateSecretWatch(chatId: number, userId: number): Promise<boolean> {
    const key = PendingInputs.key(chatId, userId);
    if (this.current(chatId, userId) !== undefined) return false;
    const until = this.lateSecrets.get(key);
    if (until === undefined) return false;
    if (until <= this.clock.now()) {
      this.lateSecrets.delete(key);
      return false;
    }
    return true;
  }

  async secretExpected(userId: number): Promise<boolean> {
    for (const [key, entry] of this.entries) {
      if (entry.input.kind === 'connect-secret' && key.endsWith(`:${userId}`) && entry.until > this.clock.now()) return true;
    }
    return false;
  }

  /** An expired secret question's marker stays (another command is no sign the secret is safe). */
  async clear(chatId: number, userId: number): Promise<boolean> {
    // An expired question is no open question: it turns into its marker, if any, and is not "ended".
    if (this.current(chatId, userId) === undefined) return false;
    return this.entries.delete(PendingInputs.key(chatId, userId));
  }

  async endLateSecret(chatId: number, userId: number): Promise<void> {
    this.lateSecrets.delete(PendingInputs.key(chatId, userId));
  }

  async clearUser(userId: number): Promise<void> {
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
