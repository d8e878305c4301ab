/**
 * The settle digest: once a day at most, one message per user who has positions whose event
 * started more than SETTLE_DIGEST_HOURS ago and are still unsettled ("3 positions wait for a
 * result … /open"). A digest, never a nag per bet; nothing is settled without the user. It reads
 * the ledger's in-memory marks (no store read per user without such positions) and remembers when
 * it last wrote to each user in their ledger settings, so a restart does not send it twice.
 * Several fronts: only the one that sends alerts (the sender lease's holder) sends digests, since
 * two fronts looking at the same moment would both find a user's digest due.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { translator } from '../locales/i18n.js';
import type { Store } from '../store/port.js';

/** How often the digest looks; a user hears from it at most once per DIGEST_EVERY_MS. */
export const DIGEST_CHECK_MS = 15 * 60_000;
export const DIGEST_EVERY_MS = 24 * 3_600_000;

export interface SettleDigestOptions {
  store: Pick<Store, 'getUser' | 'ledger'>;
  clock: Clock;
  logger: Logger;
  /** SETTLE_DIGEST_HOURS: how long after its start a position counts as waiting. */
  hours: number;
  /** Hands a message to the outbox. */
  send: (chatId: number, text: string) => void;
  /** Whether this process sends digests now (a cluster: the front holding the sender lease); default always. */
  active?: () => boolean;
}

export interface SettleDigest {
  /** One look: sends the digests due now; returns how many were sent. */
  run(): Promise<number>;
  start(): void;
  stop(): void;
}

export function createSettleDigest(opts: SettleDigestOptions): SettleDigest {
  const { store, clock } = opts;
  const log = opts.logger.child({ module: 'settle-digest' });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  const once = async (): Promise<number> => {
    if (opts.active && !opts.active()) return 0;
    const now = clock.now();
    const before = now - opts.hours * 3_600_000;
    let sent = 0;
    for (const userId of store.ledger.usersWithMarks()) {
      const waiting = [...store.ledger.marks(userId).values()].filter((m) => m.eventStart !== null && m.eventStart < before).length;
      const user = store.getUser(userId);
      if (waiting === 0 || !user || user.blocked) continue;
      try {
        const book = await store.ledger.book(userId);
        if (book.settings.digestAt !== null && now - book.settings.digestAt < DIGEST_EVERY_MS) continue;
        await store.ledger.updateSettings(userId, { digestAt: now });
        opts.send(user.chatId, translator(user.lang)('ledger_digest', { n: waiting, hours: opts.hours }));
        sent += 1;
      } catch (err) {
        log.warn({ err, userId }, 'the settle digest of a user failed; tried again at the next look');
      }
    }
    return sent;
  };

  return {
    run() {
      running ??= once().finally(() => {
        running = undefined;
      });
      return running;
    },
    start() {
      timer ??= setInterval(() => void this.run(), DIGEST_CHECK_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
