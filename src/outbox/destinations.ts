/**
 * Alert destinations stay true. A user may send alerts to a group or channel where both the bot
 * and the user are admins; that is checked when the chat is chosen, and it can stop being true
 * later: the bot is removed or restricted, the user loses admin rights, the chat is deleted, or a
 * group is upgraded to a supergroup under a new id.
 *
 * - `fallBackToPrivate`: alerts go to the user's private chat again, and the user is told (in
 *   their language) what happened and what to do.
 * - `followMigration`: destinations move to the supergroup's new id.
 * - `DestinationWatch`: re-checks each destination on a slow timer (about three Bot API calls per
 *   destination every half hour, spread over the period) and at once when Telegram answers a
 *   send with a 400 about the chat or its rights. Only a definite answer moves a destination: a
 *   network failure, a 5xx or a 429 leaves it as it is until the next check.
 */
import type { Api } from 'grammy';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { translator, type MessageKey } from '../locales/i18n.js';
import type { SchedulerPort } from '../scheduler/port.js';
import type { UserRecord } from '../store/schema.js';
import type { Store } from '../store/port.js';
import { classifyTelegramError } from './errors.js';

/** Why a destination was given up. */
export type LossReason = 'removed' | 'gone' | 'bot-rights' | 'user-rights';

const LOSS_TEXT: Record<LossReason, MessageKey> = {
  removed: 'alerts_chat_lost',
  gone: 'alerts_chat_gone',
  'bot-rights': 'alerts_bot_rights_lost',
  'user-rights': 'alerts_user_rights_lost',
};

/** A member who may keep alerts coming to a chat (the bot, and the user who chose it). */
export const ADMIN_STATUSES: ReadonlySet<string> = new Set(['creator', 'administrator']);
/** The bot is no longer in the chat. */
export const GONE_STATUSES: ReadonlySet<string> = new Set(['kicked', 'left']);

export interface DestinationDeps {
  store: Pick<Store, 'listUsers' | 'updateUser'>;
  scheduler: Pick<SchedulerPort, 'refreshUser'>;
  logger: Logger;
  /** Sends `text` (HTML) to a private chat; must not throw. */
  tell: (chatId: number, text: string) => void;
}

/**
 * Sends the alerts of every user whose destination is `chatId` (or only `userIds`) back to their
 * private chat, and tells each of them why. Returns the users moved.
 */
export function fallBackToPrivate(
  deps: DestinationDeps,
  chatId: number,
  reason: LossReason,
  title: string | undefined,
  userIds?: readonly number[],
): number[] {
  const moved: number[] = [];
  for (const user of deps.store.listUsers()) {
    if (user.alertChatId !== chatId || (userIds && !userIds.includes(user.id))) continue;
    deps.store.updateUser(user.id, (draft) => {
      draft.alertChatId = null;
    });
    deps.scheduler.refreshUser(user.id);
    moved.push(user.id);
    deps.logger.info({ userId: user.id, target: chatId, reason }, 'alert chat lost: alerts go to the private chat');
    deps.tell(user.chatId, translator(user.lang)(LOSS_TEXT[reason], { chat: title ?? String(chatId) }));
  }
  return moved;
}

/** Moves every destination `oldId` to the supergroup `newId`. Returns the users moved. */
export function followMigration(deps: Omit<DestinationDeps, 'tell'>, oldId: number, newId: number): number[] {
  const moved: number[] = [];
  if (oldId === newId) return moved;
  for (const user of deps.store.listUsers()) {
    if (user.alertChatId !== oldId) continue;
    deps.store.updateUser(user.id, (draft) => {
      draft.alertChatId = newId;
    });
    deps.scheduler.refreshUser(user.id);
    moved.push(user.id);
  }
  if (moved.length > 0) deps.logger.info({ from: oldId, to: newId, users: moved.length }, 'the alert group became a supergroup: alerts follow it');
  return moved;
}

/** The result of one check of a destination. */
export type CheckOutcome = 'ok' | 'lost' | 'migrated' | 'unknown' | 'unused';

export interface DestinationWatchOptions extends DestinationDeps {
  /** Reads chats and members (give it the chat gate, so checks keep to a chat's 429 pauses). */
  api: Pick<Api, 'getChat' | 'getChatMember'>;
  /** The bot's own user id (known once the bot has started). */
  botId: () => number;
  clock: Clock;
  /** Each destination is checked about this often (default 30 min). */
  checkEveryMs?: number;
  /** The watch looks for destinations due this often (default 60 s). */
  tickMs?: number;
  /** Destinations checked in one tick at most (default 5). */
  perTick?: number;
  /** After a 400 about a chat, another check of it waits at least this long (default 60 s). */
  recheckAfterMs?: number;
}

type Answer<T> = { ok: true; value: T } | { ok: false; outcome: 'lost-removed' | 'lost-gone' | 'migrated' | 'refused' | 'unknown'; newChatId?: number };

async function ask<T>(call: () => Promise<T>): Promise<Answer<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    const failure = classifyTelegramError(err);
    switch (failure.kind) {
      case 'migrated':
        return { ok: false, outcome: 'migrated', newChatId: failure.newChatId };
      case 'blocked':
        return { ok: false, outcome: 'lost-removed' };
      case 'chat-unavailable':
        return { ok: false, outcome: 'lost-gone' };
      case 'permanent':
        return { ok: false, outcome: 'refused' };
      default:
        return { ok: false, outcome: 'unknown' };
    }
  }
}

export class DestinationWatch {
  private readonly checkEveryMs: number;
  private readonly tickMs: number;
  private readonly perTick: number;
  private readonly recheckAfterMs: number;
  private readonly log: Logger;
  /** When each destination is due for its next check. */
  private readonly due = new Map<number, number>();
  /** When each destination was last checked (a burst of refused sends costs one check). */
  private readonly checkedAt = new Map<number, number>();
  private readonly running = new Map<number, Promise<CheckOutcome>>();
  private abort: AbortController | undefined;
  private loopDone: Promise<void> | undefined;

  constructor(private readonly opts: DestinationWatchOptions) {
    this.checkEveryMs = Math.max(1000, opts.checkEveryMs ?? 30 * 60_000);
    this.tickMs = Math.max(100, opts.tickMs ?? 60_000);
    this.perTick = Math.max(1, opts.perTick ?? 5);
    this.recheckAfterMs = Math.max(0, opts.recheckAfterMs ?? 60_000);
    this.log = opts.logger.child({ module: 'destinations' });
  }

  start(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    this.loopDone = (async () => {
      while (!abort.signal.aborted) {
        await this.opts.clock.sleep(this.tickMs, abort.signal);
        if (abort.signal.aborted) break;
        await this.tick().catch((err: unknown) => this.log.warn({ err }, 'destination checks failed; trying again next tick'));
      }
    })();
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    this.abort = undefined;
    await this.loopDone;
    await Promise.all(this.running.values());
  }

  /** Checks the destinations that are due (at most `perTick`); a new destination is first due within one period, spread by its id. */
  async tick(): Promise<void> {
    const now = this.opts.clock.now();
    const targets = new Set<number>();
    for (const user of this.opts.store.listUsers()) if (user.alertChatId !== null) targets.add(user.alertChatId);
    for (const chatId of this.due.keys()) {
      if (targets.has(chatId)) continue;
      this.due.delete(chatId);
      this.checkedAt.delete(chatId);
    }
    const ready: number[] = [];
    for (const chatId of targets) {
      let at = this.due.get(chatId);
      if (at === undefined) {
        at = now + (Math.abs(chatId) % this.checkEveryMs);
        this.due.set(chatId, at);
      }
      if (at <= now) ready.push(chatId);
    }
    ready.sort((a, b) => (this.due.get(a) ?? 0) - (this.due.get(b) ?? 0));
    for (const chatId of ready.slice(0, this.perTick)) await this.check(chatId);
  }

  /** Telegram refused a send to `chatId` with a 400 about the chat or its rights: check it soon (once a minute at most). */
  suspect(chatId: number): void {
    const last = this.checkedAt.get(chatId);
    if (last !== undefined && this.opts.clock.now() - last < this.recheckAfterMs) return;
    void this.check(chatId);
  }

  /** A group became a supergroup. */
  migrated(oldId: number, newId: number): void {
    followMigration(this.opts, oldId, newId);
    this.due.delete(oldId);
  }

  /** The chat refuses the bot (a 403, or the bot was removed). */
  lost(chatId: number, reason: LossReason, title?: string): void {
    fallBackToPrivate(this.opts, chatId, reason, title);
    this.due.delete(chatId);
  }

  /** Checks one destination now (one check per chat at a time). */
  check(chatId: number): Promise<CheckOutcome> {
    const inFlight = this.running.get(chatId);
    if (inFlight) return inFlight;
    const now = this.opts.clock.now();
    this.due.set(chatId, now + this.checkEveryMs);
    this.checkedAt.set(chatId, now);
    const run = this.checkNow(chatId).finally(() => this.running.delete(chatId));
    this.running.set(chatId, run);
    return run;
  }

  private usersOf(chatId: number): UserRecord[] {
    return this.opts.store.listUsers().filter((u) => u.alertChatId === chatId);
  }

  private async checkNow(chatId: number): Promise<CheckOutcome> {
    if (this.usersOf(chatId).length === 0) return 'unused';
    const { api } = this.opts;
    const chat = await ask(() => api.getChat(chatId));
    if (!chat.ok) return this.settle(chatId, chat, undefined);
    const title = 'title' in chat.value && typeof chat.value.title === 'string' ? chat.value.title : undefined;

    const me = await ask(() => api.getChatMember(chatId, this.opts.botId()));
    if (!me.ok) return this.settle(chatId, me, title);
    if (GONE_STATUSES.has(me.value.status)) return this.lose(chatId, 'removed', title);
    if (!ADMIN_STATUSES.has(me.value.status)) return this.lose(chatId, 'bot-rights', title);

    const notAdmins: number[] = [];
    for (const user of this.usersOf(chatId)) {
      const member = await ask(() => api.getChatMember(chatId, user.id));
      // "user not found" and the like: not a member, so not an admin either.
      if (member.ok ? !ADMIN_STATUSES.has(member.value.status) : member.outcome === 'refused') notAdmins.push(user.id);
    }
    if (notAdmins.length === 0) return 'ok';
    fallBackToPrivate(this.opts, chatId, 'user-rights', title, notAdmins);
    return 'lost';
  }

  private settle(chatId: number, answer: Answer<unknown> & { ok: false }, title: string | undefined): CheckOutcome {
    switch (answer.outcome) {
      case 'migrated':
        if (answer.newChatId === undefined) return 'unknown';
        this.migrated(chatId, answer.newChatId);
        return 'migrated';
      case 'lost-removed':
        return this.lose(chatId, 'removed', title);
      case 'lost-gone':
        return this.lose(chatId, 'gone', title);
      default:
        this.log.debug({ chatId, outcome: answer.outcome }, 'destination check inconclusive; trying again next period');
        return 'unknown';
    }
  }

  private lose(chatId: number, reason: LossReason, title: string | undefined): CheckOutcome {
    this.lost(chatId, reason, title);
    return 'lost';
  }
}
