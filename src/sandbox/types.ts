/** The sandbox's public types (re-exported by `index.ts`). */
import type { Clock } from '../clock.js';
import type { Service } from '../service/services.js';
import type { InjectOptions, WorldChange, WorldProfile } from './world-model.js';
import type { WireEnvelope, WireItem } from './wire.js';

/** An access key pair the sandbox accepts. */
export interface SandboxKey {
  accessKey: string;
  secret: string;
  /** Services this key may get tokens for; default: all six. */
  services?: Service[];
  /** A key without paid access: items come back with odds 0 and `masked: true`. */
  masked?: boolean;
}

/** Injected faults; every rate is a share 0..1 drawn from the seeded PRNG. */
export interface SandboxFaults {
  /** Share of data and dictionary requests answered 500. */
  errorRate?: number;
  /** Delay before every answer, real ms. */
  latencyMs?: number;
  /** Share of requests that never answer (the socket is held until the client gives up). */
  timeoutRate?: number;
  /** Share of 200 answers whose JSON body is cut short. */
  malformedRate?: number;
  /** Access keys whose token requests and data calls now get 403. */
  revokedKeys?: string[];
  /** The service's clock runs this many ms ahead of the sandbox's (negative: behind): its Date header and every time it writes. */
  clockSkewMs?: number;
}

export interface SandboxLimits {
  tokensPerHour: number;
  filtersPerHour: number;
  itemsPerMinute: number;
  dictsPerDay: number;
  /** 'key': tokens per key, filters and reads per key and host; 'address': per remote address instead. Dictionaries are always per address. */
  scope: 'key' | 'address';
  /** How token requests are counted; default `scope`. The real token endpoint is addressed by key (LIMIT_SCOPE_TOKENS). */
  tokenScope?: 'key' | 'address';
}

export interface SandboxOptions {
  /** Default 0 (ephemeral). */
  port?: number;
  /** Default: the demo key pair. */
  keys?: SandboxKey[];
  /** Default systemClock; token expiry, limit windows and the world all follow it. */
  clock?: Clock;
  /** Default 1. */
  seed?: number;
  /** Default 300_000. */
  tokenTtlMs?: number;
  /** Defaults 20/20/30/24, scope 'key'. */
  limits?: Partial<SandboxLimits>;
  faults?: SandboxFaults;
  /** Which `{account}` forms are accepted: 'bb-' only `bb-<key>`, '' only the bare key; default 'both'. */
  accountPrefix?: 'bb-' | '' | 'both';
  world?: { eventsPerService?: number; itemsPerService?: number; meanLifetimeMs?: number; moveEveryMs?: number; profile?: WorldProfile };
  /** Every items read also carries the hostile items of `hostile.ts` (non-finite numbers, absurd times, wrong types, missing legs). */
  hostile?: boolean;
}

/** One token the sandbox handed out. */
export interface TokenGrant {
  accessKey: string;
  service: Service;
  /** Sandbox clock, ms. */
  at: number;
  expiresAt: number;
}

/** Route names used in the counters. */
export type RouteName = 'token' | 'filter' | 'items' | 'event_items' | 'item' | 'dicts' | 'other';

export interface SandboxCounters {
  /** Every request by route name (whatever its answer). */
  requests: Record<string, number>;
  /**
   * Uses by `${accessKey}|${base}|${kind}` (kind token|filter|items|dicts): requests that passed
   * authentication and the limit (the ones the limits count). For tokens, `base` is the data base
   * path of the requested service (e.g. '/arbs-live'), so rotation between services shows; for
   * dictionaries, which carry no key, the remote address stands in place of the key.
   */
  byKeyHost: Record<string, number>;
  /** Requests answered 429 because a limit was over. */
  breaches: number;
  breachLog: { at: number; route: string; scope: string }[];
  /** Item reads that passed the limit, oldest first (the latest 100,000): who read which host when, from which address. */
  readLog: { at: number; accessKey: string; base: string; address: string }[];
  /** Answers by status code; requests held by a timeout fault count under 'timeout'. */
  status: Record<string, number>;
}

/** The URLs of one sandbox, named as the bot's settings. */
export interface SandboxUrls {
  BB_AUTH_URL: string;
  BB_DICTS_URL: string;
  BB_ARBS_PREMATCH_URL: string;
  BB_ARBS_LIVE_URL: string;
  BB_MIDDLES_PREMATCH_URL: string;
  BB_MIDDLES_LIVE_URL: string;
  BB_VALUEBETS_PREMATCH_URL: string;
  BB_VALUEBETS_LIVE_URL: string;
}

/** The world controls for tests and benchmarks. */
export interface SandboxWorld {
  /** Brings the world forward to the clock's now. */
  step(): void;
  /** When an item appeared (ms on the sandbox clock), alive or gone; undefined for an unknown id. */
  appearedAt(itemId: string): number | undefined;
  /**
   * Makes a new item appear now; `profit` sets its value (profit %, miss profit % for middles,
   * overvalue % for valuebets) to within the rounding of the odds (about ±0.3); `legAgesMs` the legs'
   * ages (null: no `updated`); `bookmakers` the legs' bookmakers in order (one per outcome).
   */
  inject(service: Service, opts?: InjectOptions): WireItem;
  /** The world's changes (appeared/moved/gone ids) at or after `sinceMs`, oldest first (after stepping to now). */
  changes(sinceMs: number, service?: Service): WorldChange[];
}

export interface Sandbox {
  readonly port: number;
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly urls: SandboxUrls;
  /** The first key. */
  readonly demoKey: SandboxKey;
  /** A snapshot copy. */
  counters(): SandboxCounters;
  /** Every token handed out (the latest 10,000 at most), oldest first: when each key could read each service. */
  tokenGrants(): TokenGrant[];
  resetCounters(): void;
  /** Replaces the fault settings live. */
  setFaults(f: SandboxFaults): void;
  /** Adds a key pair, or replaces the one with the same access key. */
  addKey(k: SandboxKey): void;
  /** The items currently alive for a service, as the world holds them (wire shape, unmasked, in order of appearance). */
  currentItems(service: Service): WireItem[];
  /** The whole unfiltered envelope a read would return now for a service (unmasked). */
  currentEnvelope(service: Service): WireEnvelope;
  world: SandboxWorld;
  /** Stops the server, dropping held connections and pending delayed answers. */
  close(): Promise<void>;
}
