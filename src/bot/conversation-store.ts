/**
 * Where the conversations plugin keeps its flows: in memory (the plugin's default) but with the
 * time each chat's state was last written, so flows nobody finishes are dropped on a timer. The
 * plugin itself only notices a timed-out flow when the same chat writes again; a user who opens
 * /filter and never comes back would otherwise hold its kept updates for the life of the process.
 *
 * The map is kept in order of last write (a write moves its key to the end), so a sweep reads
 * from the oldest and stops at the first fresh entry or after a fixed number: bounded work per
 * tick whatever the number of chats.
 *
 * `ConversationStorage` is the seam: this module is the embedded bot's; the fronts of a cluster
 * keep the flows in Redis (src/cluster/shared-conversations.ts), where each chat's state expires by
 * itself (PX) instead of being swept, so a flow begun on one front goes on on another.
 */
import type { ConversationData, VersionedState, VersionedStateStorage } from '@grammyjs/conversations';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { FLOW_TIMEOUT_MS } from './conversations/timeout.js';

/** How often the sweep runs, and how many chats one run may drop at most. */
export const CONVERSATION_SWEEP_EVERY_MS = 60_000;
export const CONVERSATION_SWEEP_MAX = 1_000;

/** Where the bot's guided flows are kept, as the bot and the front use it. */
export interface ConversationStorage {
  /** The storage adapter handed to `conversations({ storage })`. */
  readonly adapter: VersionedStateStorage<string, ConversationData>;
  /** Starts whatever keeps the storage small (a sweep), until `stop`. */
  start(): void;
  stop(): void;
}

export interface ConversationStore extends ConversationStorage {
  /** Drops flows idle past the timeout, oldest first, at most `max`; returns how many went. */
  sweep(max?: number): number;
  /** Chats with a flow kept. */
  readonly size: number;
}

export interface ConversationStoreOptions {
  clock: Clock;
  logger?: Logger;
  /** Idle time after which a flow is abandoned: every wait of a flow ends after FLOW_TIMEOUT_MS. */
  idleMs?: number;
  everyMs?: number;
  maxPerSweep?: number;
}

export function createConversationStore(opts: ConversationStoreOptions): ConversationStore {
  const { clock } = opts;
  const idleMs = opts.idleMs ?? FLOW_TIMEOUT_MS;
  const everyMs = opts.everyMs ?? CONVERSATION_SWEEP_EVERY_MS;
  const maxPerSweep = opts.maxPerSweep ?? CONVERSATION_SWEEP_MAX;
  const entries = new Map<string, { state: VersionedState<ConversationData>; at: number }>();
  let controller: AbortController | undefined;

  const sweep = (max = maxPerSweep): number => {
    const before = clock.now() - idleMs;
    let dropped = 0;
    for (const [key, entry] of entries) {
      if (dropped >= max || entry.at >= before) break;
      entries.delete(key);
      dropped += 1;
    }
    if (dropped > 0) opts.logger?.debug({ dropped, left: entries.size }, 'dropped abandoned conversations');
    return dropped;
  };

  const loop = async (signal: AbortSignal): Promise<void> => {
    for (;;) {
      await clock.sleep(everyMs, signal);
      if (signal.aborted) return;
      sweep();
    }
  };

  return {
    adapter: {
      read: (key) => entries.get(key)?.state,
      write: (key, state) => {
        entries.delete(key);
        entries.set(key, { state, at: clock.now() });
      },
      delete: (key) => {
        entries.delete(key);
      },
    },
    sweep,
    get size() {
      return entries.size;
    },
    start() {
      if (controller) return;
      controller = new AbortController();
      void loop(controller.signal);
    },
    stop() {
      controller?.abort();
      controller = undefined;
    },
  };
}
