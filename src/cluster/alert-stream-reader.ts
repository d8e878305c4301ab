/**
 * The front's end of the alert streams as Redis sees it: a consumer of the group `senders` on both
 * streams (alert-jobs.ts), which reads entries with one blocking XREADGROUP, takes over the entries
 * another front left unanswered (XAUTOCLAIM), settles the claims of the alerts it sent, acknowledges
 * and deletes the entries it finished and publishes the answers — all that ends within one short
 * window in one pipelined round trip: the settles first, then one XACK and one XDEL a stream, one
 * PUBLISH a worker. What an entry holds is alert-consumer.ts's.
 *
 * Entries in hand are bounded (`room()`): the reader asks for more only while there is room, and
 * asks the `new` stream's first, so new alerts go ahead of waiting edits when the front is full.
 * An entry taken and not acknowledged stays in the group's pending list: a front that dies leaves
 * it there, and the next front to read takes it over at its start (any idle time: only the holder
 * of the sender lease reads, so a pending entry of another consumer is one its front gave up) and
 * later every `reclaimIntervalMs` those idle for `reclaimIdleMs`, in case two fronts read for a
 * moment while the sender lease moved.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { alertStreams, answerChannel, SENDERS_GROUP, type Answer } from './alert-jobs.js';
import { settleOnPipelines, type RedisConnection } from './claims.js';

export interface StreamEntry {
  /** Which stream it came from: 'new' (sends) or 'edit'. */
  stream: 'new' | 'edit';
  id: string;
  /** Its fields, as Redis holds them (checked by the consumer). */
  fields: Record<string, string>;
}

export interface StreamReaderOptions {
  connection: RedisConnection;
  prefix: string;
  logger: Logger;
  /** This consumer's name in the group. */
  consumer: string;
  /** How many more alerts the front can take now (0: wait for `wake()`). */
  room(): number;
  /** Called with each entry taken (read or taken over), in order: the `new` stream's first. */
  onEntry(entry: StreamEntry): void;
  /** How long one blocking read waits (default 5 s): an idle front's only Redis command, so its cost a minute. */
  blockMs?: number;
  /** How long the reader waits after a read before the next (default 20 ms), so that a busy minute's entries come several a read. */
  gatherMs?: number;
  /** How long the answers and acknowledgements of alerts that end are gathered before they go (default 20 ms). */
  flushMs?: number;
  /** Pending entries of another consumer idle this long are taken over (default 60 s). */
  reclaimIdleMs?: number;
  /** How often they are looked for (default 30 s). */
  reclaimIntervalMs?: number;
}

export interface StreamReader {
  /** Starts reading (takes over every entry another front left first). */
  start(): void;
  /** The reader waits for room: call when alerts end. */
  wake(): void;
  /** Queues an answer for worker outbox `to` (sent within `flushMs`). */
  answer(to: string, answer: Answer): void;
  /**
   * Queues the settle of `holder`'s claim of `key` with Telegram's answer (claims.ts): it goes in
   * the next flush, ahead of the answers and acknowledgements, so an entry is never acknowledged
   * before its alerts' claims say they were sent.
   */
  settle(key: string, holder: string, messageId: number | undefined): void;
  /** Queues the acknowledgement (and deletion) of a finished entry. */
  ack(entry: Pick<StreamEntry, 'stream' | 'id'>): void;
  /** Lets go of an entry that could not be handled now: left pending, it is taken over again once idle. */
  release(entry: Pick<StreamEntry, 'stream' | 'id'>): void;
  /** Stops reading (an entry being read is still handed over). */
  stop(): Promise<void>;
  /** Sends what is queued and closes the connections. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type RawEntries = [string, string[] | null][];

function toFields(raw: string[] | null): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!raw) return fields;
  for (let n = 0; n + 1 < raw.length; n += 2) fields[raw[n]!] = raw[n + 1]!;
  return fields;
}

export function createStreamReader(opts: StreamReaderOptions): StreamReader {
  const log = opts.logger.child({ module: 'alert-stream' });
  const streams = alertStreams(opts.prefix);
  const nameOf = (key: string): 'new' | 'edit' => (key === streams.new ? 'new' : 'edit');
  const blockMs = opts.blockMs ?? 5_000;
  const gatherMs = opts.gatherMs ?? 20;
  const flushMs = opts.flushMs ?? 20;
  const reclaimIdleMs = opts.reclaimIdleMs ?? 60_000;
  // The blocking reads have a connection of their own: a command behind a blocked read would wait for it.
  const reader = new Redis(opts.connection.url, { connectionName: 'bb-alerts-consumer', maxRetriesPerRequest: null });
  // Answers and acknowledgements wait for Redis while it is away: lost, they would cost the workers a wait and the front a replay.
  const redis = new Redis(opts.connection.url, { connectionName: 'bb-alerts-answers', maxRetriesPerRequest: null, enableAutoPipelining: true });
  let lastTrouble = 0;
  const trouble = (err: unknown) => {
    if (Date.now() - lastTrouble < 10_000) return;
    lastTrouble = Date.now();
    log.warn({ err }, 'alert stream: Redis connection trouble (retrying)');
  };
  reader.on('error', trouble);
  redis.on('error', trouble);

  let stopping = false;
  /** After close: what ends later (the outbox answering after a close that did not wait) is left to the claims and the next front. */
  let closed = false;
  let loop: Promise<void> | undefined;
  let reclaimTimer: NodeJS.Timeout | undefined;
  let wakeUp: (() => void) | undefined;
  /** Entries in hand, by stream and id (the two streams' ids may be equal: both are times). */
  const taken = new Set<string>();

  const queueSettle = settleOnPipelines(redis, opts.prefix);
  const settles: { key: string; holder: string; messageId: number | undefined }[] = [];
  const answers = new Map<string, Answer[]>();
  const acks = { new: [] as string[], edit: [] as string[] };
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    flushTimer = undefined;
    if (settles.length === 0 && answers.size === 0 && acks.new.length === 0 && acks.edit.length === 0) return flushing;
    const pipe = redis.pipeline();
    for (const { key, holder, messageId } of settles) queueSettle(pipe, key, holder, messageId);
    for (const [to, list] of answers) pipe.publish(answerChannel(opts.prefix, to), JSON.stringify(list));
    for (const name of ['new', 'edit'] as const) {
      const ids = acks[name];
      if (ids.length === 0) continue;
      pipe.xack(streams[name], SENDERS_GROUP, ...ids);
      pipe.xdel(streams[name], ...ids);
      for (const id of ids) taken.delete(`${name}:${id}`);
    }
    settles.length = 0;
    answers.clear();
    acks.new = [];
    acks.edit = [];
    flushing = pipe.exec().then(
      (results) => {
        const failed = results?.find(([err]) => err !== null);
        if (failed) log.warn({ err: failed[0] }, 'alert stream: answers, settles or acknowledgements not sent (the workers read their claims; the entries are taken over later)');
      },
      (err: unknown) => log.warn({ err }, 'alert stream: answers, settles or acknowledgements not sent (the workers read their claims; the entries are taken over later)'),
    );
    return flushing;
  };
  const soon = () => {
    flushTimer ??= setTimeout(() => void flush(), flushMs);
  };

  const hand = (name: 'new' | 'edit', entries: [string, string[] | null][]) => {
    for (const [id, raw] of entries) {
      if (taken.has(`${name}:${id}`)) continue;
      taken.add(`${name}:${id}`);
      opts.onEntry({ stream: name, id, fields: toFields(raw) });
    }
  };

  const ensureGroups = async () => {
    for (const key of [streams.new, streams.edit]) {
      try {
        // From the start: entries added before any front created the group are read too.
        await redis.xgroup('CREATE', key, SENDERS_GROUP, '0', 'MKSTREAM');
      } catch (err) {
        if (!(err instanceof Error && err.message.includes('BUSYGROUP'))) throw err;
      }
    }
  };

  /**
   * Jobs left in the BullMQ queue of versions before the stream (`{prefix}alert-queue:*`) are not
   * sent by this one: said once at start, with how to empty it (docs/cluster.md).
   */
  const warnOfOldQueue = async () => {
    const q = `${opts.prefix.endsWith(':') ? opts.prefix : `${opts.prefix}:`}alert-queue:`;
    const counts = await redis.pipeline().llen(`${q}wait`).llen(`${q}active`).llen(`${q}paused`).zcard(`${q}prioritized`).zcard(`${q}delayed`).exec();
    const jobs = (counts ?? []).reduce((sum, [err, n]) => sum + (err === null && typeof n === 'number' ? n : 0), 0);
    if (jobs > 0) {
      log.warn(
        { jobs, keys: `${q}*` },
        'alert stream: alert jobs of an older version wait in its BullMQ queue, and this version does not send them: let a front of that version empty it before the upgrade (docs/cluster.md, "The move to the alert stream")',
      );
    }
  };

  /** Takes over the pending entries of other consumers idle at least `minIdleMs`. */
  const reclaim = async (minIdleMs: number) => {
    for (const key of [streams.new, streams.edit]) {
      let cursor = '0-0';
      do {
        const reply = (await redis.xautoclaim(key, SENDERS_GROUP, opts.consumer, minIdleMs, cursor, 'COUNT', 100)) as [string, RawEntries, string[]?];
        cursor = reply[0];
        // Entries trimmed or deleted meanwhile are dropped from the pending list by XAUTOCLAIM itself.
        hand(nameOf(key), reply[1].filter(([, raw]) => raw !== null));
      } while (cursor !== '0-0' && !stopping);
    }
  };

  const waitForRoom = async () => {
    while (!stopping && opts.room() <= 0) await new Promise<void>((resolve) => (wakeUp = resolve));
  };

  const run = async () => {
    let ready = false;
    let warned = false;
    while (!stopping) {
      try {
        if (!ready) {
          await ensureGroups();
          if (!warned) {
            warned = true;
            await warnOfOldQueue();
          }
          await reclaim(0);
          ready = true;
        }
        await waitForRoom();
        if (stopping) break;
        const count = Math.max(1, Math.min(100, opts.room()));
        const reply = (await reader.xreadgroup('GROUP', SENDERS_GROUP, opts.consumer, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', streams.new, streams.edit, '>', '>')) as
          | [string, RawEntries][]
          | null;
        if (reply) {
          // The new alerts first, whatever order Redis answered in.
          const ordered = [...reply].sort(([a], [b]) => (a === streams.new ? -1 : b === streams.new ? 1 : 0));
          for (const [key, entries] of ordered) hand(nameOf(key), entries);
          if (gatherMs > 0) await sleep(gatherMs);
        }
      } catch (err) {
        if (stopping) break;
        // NOGROUP: the streams were removed (a Redis without its data): make the groups again.
        if (err instanceof Error && err.message.includes('NOGROUP')) ready = false;
        trouble(err);
        await sleep(1_000);
      }
    }
  };

  return {
    start() {
      loop ??= run();
      reclaimTimer = setInterval(() => {
        reclaim(reclaimIdleMs).catch(trouble);
      }, opts.reclaimIntervalMs ?? 30_000);
      reclaimTimer.unref();
    },
    wake() {
      const w = wakeUp;
      wakeUp = undefined;
      w?.();
    },
    answer(to, answer) {
      if (closed) return;
      const list = answers.get(to) ?? [];
      list.push(answer);
      answers.set(to, list);
      soon();
    },
    settle(key, holder, messageId) {
      if (closed) return;
      settles.push({ key, holder, messageId });
      soon();
    },
    ack(entry) {
      if (closed) return;
      acks[entry.stream].push(entry.id);
      soon();
    },
    release(entry) {
      taken.delete(`${entry.stream}:${entry.id}`);
    },
    async stop() {
      stopping = true;
      clearInterval(reclaimTimer);
      this.wake();
      // A blocked read ends only with its connection.
      reader.disconnect();
      await loop;
    },
    async close() {
      await this.stop();
      clearTimeout(flushTimer);
      await flush();
      closed = true;
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
