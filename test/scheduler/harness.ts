/** Shared set-up of the scheduler tests: a real store in a temp dir, users, a recording notifier. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import type { DiffEvent } from '../../src/scheduler/diff.js';
import type { Scheduler } from '../../src/scheduler/scheduler.js';
import type { DraftOutcome, NoticeReason, Notifier, NotifierStats, SubscriptionRef } from '../../src/scheduler/port.js';
import { filterSettingsSchema, type FilterSettings } from '../../src/service/filter-model.js';
import type { Service } from '../../src/service/services.js';
import type { Lang, UserRecord } from '../../src/store/schema.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';

export async function tempStore(clock: ManualClock, debounceMs = 50): Promise<{ store: Store; dataDir: string; cleanup: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bb-scheduler-'));
  const store = await openStore({ dataDir, logger: silentLogger, clock, debounceMs });
  return {
    store,
    dataDir,
    cleanup: async () => {
      await store.close().catch(() => undefined);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A vault stand-in: secrets are stored as "enc:<secret>". */
export const plainVault = { decrypt: (blob: string) => blob.replace(/^enc:/, '') };

export interface UserSpec {
  accessKey?: string;
  secret?: string;
  lang?: Lang;
  blocked?: boolean;
  filter?: Partial<FilterSettings>;
  paused?: Service[];
  alertChatId?: number;
  quietHours?: { from: string; to: string };
}

/** Stores a user with a key and a filter per service. */
export function addUser(store: Store, id: number, services: Service[], spec: UserSpec = {}): UserRecord {
  return store.updateUser(
    id,
    (u) => {
      u.lang = spec.lang ?? 'en';
      u.key = { accessKey: spec.accessKey ?? `key-${id}`, secretEnc: `enc:${spec.secret ?? `secret-${id}`}`, connectedAt: 0 };
      for (const s of services) {
        const paused = spec.paused?.includes(s) ?? false;
        u.filters[s] = { settings: filterSettingsSchema.parse(spec.filter ?? {}), paused, pausedReason: paused ? 'user' : null, savedAt: 0 };
      }
      u.blocked = spec.blocked ?? false;
      if (spec.alertChatId !== undefined) u.alertChatId = spec.alertChatId;
      if (spec.quietHours) u.quietHours = spec.quietHours;
    },
    { chatId: id, lang: spec.lang ?? 'en' },
  );
}

/** Moves the clock forward in steps, letting every read started on the way finish before the next step. */
export async function runFor(clock: ManualClock, scheduler: Pick<Scheduler, 'whenIdle'>, ms: number, stepMs = 1_000): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    await clock.advance(Math.min(stepMs, ms - done));
    await scheduler.whenIdle();
  }
}

/** A notifier that records what it is given. */
export class RecordingNotifier implements Notifier {
  readonly events: { sub: SubscriptionRef; event: DiffEvent; at: number }[] = [];
  readonly notices: { userId: number; reason: NoticeReason; service: Service }[] = [];
  readonly drafts: { userId: number; service: Service; outcome: DraftOutcome; at: number }[] = [];

  constructor(private readonly now: () => number) {}

  notify(sub: SubscriptionRef, _user: Readonly<UserRecord>, events: readonly DiffEvent[]): void {
    for (const event of events) this.events.push({ sub, event, at: this.now() });
  }
  notice(user: Readonly<UserRecord>, reason: NoticeReason, service: Service): void {
    this.notices.push({ userId: user.id, reason, service });
  }
  draft(user: Readonly<UserRecord>, service: Service, outcome: DraftOutcome): void {
    this.drafts.push({ userId: user.id, service, outcome, at: this.now() });
  }
  stats(): NotifierStats {
    return { alerts: 0, edits: 0, skipped: 0, held: 0, notices: this.notices.length, failures: 0, alertsLastMinute: 0 };
  }
  async idle(): Promise<void> {}
}

/** A seeded jitter source (0 ≤ x < 1): the same sequence, so the same run, every time. */
export function seededRandom(seed: number): () => number {
  let s = seed;
  return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
}

