/**
 * Stand-ins for the cluster's parts (src/cluster/parts.ts) built from the embedded pieces, for
 * testing the role wiring with several roles in one test process: one lowdb store shared by every
 * role (its change feed told after each write, asynchronously as a pub/sub message would be), the
 * ordinary service client, and a bridge from the workers' outbox to the front's outbox in place of
 * the alert stream. Leases, the latest-items channel and the roles' own Redis use are real. The
 * real store, shared client and queue are the other cluster pieces' (and their tests').
 */
import { openStore, type JsonStore } from '../../src/store/store.js';
import { createServiceClient } from '../../src/service/client.js';
import type { OutboxPort } from '../../src/outbox/port.js';
import type { ClusterParts, ClusterStore } from '../../src/cluster/parts.js';

export interface StandIns extends ClusterParts {
  /** User ids whose alert state a worker asked to load, in order. */
  readonly loads: number[][];
  /** Sends that went through the bridge, and how often a worker's outbox was asked to add what waits. */
  readonly bridged: { sends: number; edits: number; added: number };
  /** What each write of alert state waits for, as the roles registered it (a worker: its outbox's `added`). */
  readonly alertWaits: (() => Promise<void>)[];
}

function withFeed(inner: JsonStore, loads: number[][], alertWaits: (() => Promise<void>)[], release: () => Promise<void>): ClusterStore {
  const listeners = new Set<(userId: number) => void>();
  const tell = (userId: number) => setImmediate(() => listeners.forEach((l) => l(userId)));
  return {
    get alerts() {
      return inner.alerts;
    },
    get loadReport() {
      return inner.loadReport;
    },
    get ledger() {
      return inner.ledger;
    },
    get prints() {
      return inner.prints;
    },
    getUser: (id) => inner.getUser(id),
    updateUser: (id, mutate, init) => {
      const user = inner.updateUser(id, mutate, init);
      tell(id);
      return user;
    },
    updateStatus: (id, service, change) => inner.updateStatus(id, service, change),
    deleteUser: (id) => {
      const gone = inner.deleteUser(id);
      tell(id);
      return gone;
    },
    listUsers: () => inner.listUsers(),
    refreshUsers: () => Promise.resolve(),
    findUserByAccessKey: (key) => inner.findUserByAccessKey(key),
    flush: () => inner.flush(),
    close: release,
    writable: () => inner.writable(),
    corruptFiles: () => inner.corruptFiles(),
    loadAlerts: async (userIds) => void loads.push([...userIds]),
    alertWritesAfter: (wait) => void alertWaits.push(wait),
    onUserChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export function standInParts(dataDir: string): StandIns {
  const loads: number[][] = [];
  const bridged = { sends: 0, edits: 0, added: 0 };
  const alertWaits: (() => Promise<void>)[] = [];
  let shared: Promise<ClusterStore> | undefined;
  let users = 0;
  let front: OutboxPort | undefined;
  return {
    loads,
    bridged,
    alertWaits,
    openStore(ctx) {
      users++;
      shared ??= openStore({ dataDir, logger: ctx.logger, clock: ctx.clock, debounceMs: 20 }).then((inner) =>
        withFeed(inner, loads, alertWaits, async () => {
          // Closed by the last role that opened it.
          if (--users === 0) await inner.close();
        }),
      );
      return shared;
    },
    createClient: (ctx) => createServiceClient({ config: ctx.config, logger: ctx.logger, clock: ctx.clock }),
    createRemoteOutbox: () => ({
      send: async (chatId, text, opts) => {
        bridged.sends++;
        return front ? front.send(chatId, text, opts) : undefined;
      },
      edit: async (chatId, messageId, text, opts) => {
        bridged.edits++;
        return front ? front.edit(chatId, messageId, text, opts) : false;
      },
      added: async () => void bridged.added++,
      close: async () => undefined,
    }),
    startAlertConsumer(ctx) {
      front = ctx.outbox;
      return {
        stats: () => ({ ...bridged }),
        close: async () => {
          front = undefined;
        },
      };
    },
  };
}
