/**
 * The fake Bot API's updates: the queue `getUpdates` serves (one long poll at a time, a second one
 * ending the first with 409, as Telegram does), the `allowed_updates` filter, and the webhook that,
 * while set, makes `getUpdates` answer 409 and lets the server push the queue instead.
 */
import type { Update } from 'grammy/types';
import type { z } from 'zod';
import { ApiFailure } from './errors.js';
import type { deleteWebhookSchema, getUpdatesSchema, setWebhookSchema } from './schemas.js';

/** Update kinds Telegram leaves out unless `allowed_updates` asks for them. */
const OPT_IN_UPDATES = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);

export type WebhookState = { url: string; secretToken?: string; allowedUpdates?: string[] };

type PollOutcome = 'update' | 'timeout' | 'conflict' | 'aborted';

export class UpdateQueue {
  private queue: Update[] = [];
  private nextId = 1;
  private allowedUpdates: string[] | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly heldPolls = new Set<{ conflict: () => void }>();
  private closing = false;
  /** Set by setWebhook, cleared by deleteWebhook. */
  private webhook: WebhookState | undefined;

  /** The id the next pushed update gets (an update built before it is pushed names it). */
  get nextUpdateId(): number {
    return this.nextId;
  }

  push(u: Update): void {
    const update = u.update_id > 0 ? u : { ...u, update_id: this.nextId };
    this.nextId = Math.max(this.nextId, update.update_id + 1);
    this.queue.push(update);
    for (const wake of [...this.waiters]) wake();
  }

  pending(): Update[] {
    return structuredClone(this.queue);
  }

  /** Queued updates `allowed_updates` lets through, in order. */
  deliverable(): Update[] {
    return this.queue.filter((u) => this.isAllowed(u));
  }

  /** Drops a delivered update from the queue (the webhook answered 2xx). */
  delivered(updateId: number): void {
    this.queue = this.queue.filter((u) => u.update_id !== updateId);
  }

  /** Answers every held long poll with what is queued (usually nothing) and refuses to hold new ones. */
  release(): void {
    this.closing = true;
    for (const wake of [...this.waiters]) wake();
  }

  /** The webhook setWebhook stored, if any (its secret included: tests post with it). */
  webhookState(): WebhookState | undefined {
    return this.webhook ? structuredClone(this.webhook) : undefined;
  }

  setWebhook(p: z.infer<typeof setWebhookSchema>): true {
    if (p.url === '') {
      this.webhook = undefined;
      return true;
    }
    if (!/^https:\/\//.test(p.url)) throw new ApiFailure(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
    if (p.drop_pending_updates) this.queue = [];
    this.webhook = {
      url: p.url,
      ...(p.secret_token !== undefined && { secretToken: p.secret_token }),
      ...(p.allowed_updates !== undefined && { allowedUpdates: p.allowed_updates }),
    };
    if (p.allowed_updates !== undefined) this.allowedUpdates = p.allowed_updates.length > 0 ? p.allowed_updates : undefined;
    return true;
  }

  deleteWebhook(p: z.infer<typeof deleteWebhookSchema>): true {
    if (p.drop_pending_updates) this.queue = [];
    this.webhook = undefined;
    return true;
  }

  webhookInfo(): object {
    return {
      url: this.webhook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: this.queue.length,
      ...(this.webhook?.allowedUpdates !== undefined && { allowed_updates: this.webhook.allowedUpdates }),
    };
  }

  async getUpdates(p: z.infer<typeof getUpdatesSchema>, signal: AbortSignal): Promise<Update[]> {
    if (this.webhook) {
      throw new ApiFailure(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
    }
    // Telegram serves one long poll per bot: a second one ends the first with 409, as grammY expects.
    for (const held of [...this.heldPolls]) held.conflict();
    if (p.offset !== undefined) this.confirm(p.offset);
    if (p.allowed_updates !== undefined) this.allowedUpdates = p.allowed_updates.length > 0 ? p.allowed_updates : undefined;
    const limit = p.limit ?? 100;
    const deadline = Date.now() + (p.timeout ?? 0) * 1000;

    for (;;) {
      const ready = this.queue.filter((u) => this.isAllowed(u)).slice(0, limit);
      const left = deadline - Date.now();
      if (ready.length > 0 || left <= 0 || this.closing || signal.aborted) return ready;
      const outcome = await this.holdPoll(left, signal);
      if (outcome === 'conflict') {
        throw new ApiFailure(
          409,
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
        );
      }
    }
  }

  /** Waits (real time) for a new update, the timeout, a competing poll or the client going away. */
  private holdPoll(ms: number, signal: AbortSignal): Promise<PollOutcome> {
    return new Promise((resolve) => {
      const finish = (outcome: PollOutcome) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        this.heldPolls.delete(held);
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const wake = () => finish('update');
      const held = { conflict: () => finish('conflict') };
      const onAbort = () => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), ms);
      this.waiters.add(wake);
      this.heldPolls.add(held);
      signal.addEventListener('abort', onAbort);
    });
  }

  private confirm(offset: number): void {
    if (offset > 0) this.queue = this.queue.filter((u) => u.update_id >= offset);
    else if (offset < 0) this.queue = this.queue.slice(offset);
  }

  private isAllowed(u: Update): boolean {
    const kind = Object.keys(u).find((k) => k !== 'update_id') ?? '';
    return this.allowedUpdates ? this.allowedUpdates.includes(kind) : !OPT_IN_UPDATES.has(kind);
  }
}
