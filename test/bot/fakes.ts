/**
 * Small fakes of the bot's service dependencies: a programmable ServiceClient (records every call,
 * checks key pairs, can fail on demand), a SchedulerPort, fixture dictionaries and opportunities.
 */
import type { SchedulerPort, ServiceCoverage } from '../../src/scheduler/port.js';
import type { AccessKeyRef, BudgetView, RequestOptions, ServiceClient } from '../../src/service/client-types.js';
import type { Dictionaries } from '../../src/service/dictionaries-model.js';
import { ServiceError, type ServiceErrorKind } from '../../src/service/errors.js';
import type { FilterSettings } from '../../src/service/filter-model.js';
import type { ItemsRead, Opportunity } from '../../src/service/opportunity.js';
import { kindOf, SERVICES, type Service } from '../../src/service/services.js';

export const SPORTS_EN: Record<string, string> = {
  '1': 'Football',
  '2': 'Ice hockey',
  '3': 'Baseball',
  '5': 'Basketball',
  '6': 'Tennis',
  '7': 'Volleyball',
  '8': 'Handball',
  '9': 'Table tennis',
  '10': 'e-Sports',
  '14': 'Futsal',
};
export const BOOKMAKERS_EN: Record<string, string> = {
  '3': 'Bwin',
  '5': 'Marathonbet',
  '7': 'Pinnacle',
  '9': 'Sbobet',
  '10': 'Betfair Sportsbook',
  '15': 'Interwetten',
  '18': 'Unibet',
  '21': '1XBet',
  '22': 'Betclic',
  '25': 'Fonbet',
};

export function fixtureDictionaries(lang: 'en' | 'ru'): Dictionaries {
  const sports = lang === 'ru' ? { ...SPORTS_EN, '1': 'Футбол', '6': 'Теннис' } : SPORTS_EN;
  return {
    lang,
    bookmakers: BOOKMAKERS_EN,
    liveBookmakers: [7, 9],
    sports,
    oddsGroups: {},
    oddsSections: { '1': 'main' },
    oddsTypes: {
      '1': { titleShort: '1', titleFull: 'Home win', lay: false, sectionId: 1 },
      '3': { titleShort: '2', titleFull: 'Away win', lay: false, sectionId: 1 },
    },
    reflections: { '1': 3, '3': 1 },
  };
}

/** An arb (or another kind) with two legs, as the client would hand it over. */
export function makeItem(opts: {
  id: string;
  eventId?: string;
  service?: Service;
  profit?: number;
  team1?: string;
  team2?: string;
  league?: string;
  startsAt?: number;
}): Opportunity {
  const service = opts.service ?? 'arbs_prematch';
  const kind = kindOf(service);
  return {
    id: opts.id,
    service,
    kind,
    event: {
      id: opts.eventId ?? `e-${opts.id}`,
      sportId: 6,
      league: opts.league ?? 'ATP Doha',
      team1: opts.team1 ?? 'Alpha',
      team2: opts.team2 ?? 'Beta',
      startsAt: opts.startsAt ?? Date.UTC(2026, 0, 3, 12, 0, 0),
      live: service.endsWith('_live'),
    },
    legs: [
      { subEventId: 's1', bookmakerId: 7, typeId: 1, line: '', odds: 2.1, prevOdds: 2.05, updatedAt: undefined, initiator: true },
      { subEventId: 's2', bookmakerId: 3, typeId: 3, line: '', odds: 2.05, prevOdds: null, updatedAt: undefined, initiator: false },
    ],
    profit: kind === 'valuebets' ? null : (opts.profit ?? 2.4),
    middleProfit: null,
    overvalue: kind === 'valuebets' ? 4 : null,
    probability: null,
    createdAt: undefined,
    masked: false,
  };
}

type Call =
  | { method: 'checkKey'; accessKey: string; service: Service; opts?: RequestOptions }
  | { method: 'writeFilter'; accessKey: string; service: Service; filter: FilterSettings; opts?: RequestOptions }
  | { method: 'readItem'; accessKey: string; service: Service; id: string; opts?: RequestOptions }
  | { method: 'readEventItems'; accessKey: string; service: Service; id: string; opts?: RequestOptions }
  | { method: 'forgetKey'; accessKey: string }
  | { method: 'dictionaries'; lang: string };

/** A ServiceClient that follows a table of key pairs and items, and fails when told to. */
export class FakeServiceClient implements ServiceClient {
  readonly calls: Call[] = [];
  /** accessKey → secret and the services the pair may use. */
  readonly keys = new Map<string, { secret: string; services: readonly Service[] }>();
  /** Items the by-id and per-event reads return. */
  items: Opportunity[] = [];
  /** The next call of a method throws this error kind (once). */
  private readonly failures = new Map<Call['method'], { kind: ServiceErrorKind; retryAfterMs?: number }[]>();
  dictsAvailable = true;
  /** How often a secret was revealed (only checkKey and writeFilter need it). */
  reveals = 0;

  addKey(accessKey: string, secret: string, services: readonly Service[] = SERVICES): void {
    this.keys.set(accessKey, { secret, services });
  }

  failNext(method: Call['method'], kind: ServiceErrorKind, retryAfterMs?: number): void {
    const list = this.failures.get(method) ?? [];
    list.push(retryAfterMs === undefined ? { kind } : { kind, retryAfterMs });
    this.failures.set(method, list);
  }

  callsOf<M extends Call['method']>(method: M): Extract<Call, { method: M }>[] {
    return this.calls.filter((c): c is Extract<Call, { method: M }> => c.method === method);
  }

  private maybeFail(method: Call['method']): void {
    const next = this.failures.get(method)?.shift();
    if (next) {
      throw new ServiceError(next.kind, `fake ${next.kind}`, next.retryAfterMs === undefined ? {} : { retryAfterMs: next.retryAfterMs, local: true });
    }
  }

  private authorize(key: AccessKeyRef, service: Service): void {
    this.reveals++;
    const known = this.keys.get(key.accessKey);
    if (!known || known.secret !== key.revealSecret()) throw new ServiceError('auth', 'the key pair was refused');
    if (!known.services.includes(service)) throw new ServiceError('forbidden', 'no access to this service');
  }

  async checkKey(key: AccessKeyRef, service: Service, opts?: RequestOptions): Promise<void> {
    this.calls.push({ method: 'checkKey', accessKey: key.accessKey, service, ...(opts ? { opts } : {}) });
    this.maybeFail('checkKey');
    this.authorize(key, service);
  }

  hasValidToken(): boolean {
    return false;
  }

  async writeFilter(key: AccessKeyRef, service: Service, filter: FilterSettings, opts?: RequestOptions): Promise<void> {
    this.calls.push({ method: 'writeFilter', accessKey: key.accessKey, service, filter, ...(opts ? { opts } : {}) });
    this.maybeFail('writeFilter');
    this.authorize(key, service);
  }

  async readItems(): Promise<ItemsRead> {
    return { items: [], masked: false, timestamp: undefined, skipped: 0 };
  }

  async readEventItems(key: AccessKeyRef, service: Service, eventId: string, opts?: RequestOptions): Promise<ItemsRead> {
    this.calls.push({ method: 'readEventItems', accessKey: key.accessKey, service, id: eventId, ...(opts ? { opts } : {}) });
    this.maybeFail('readEventItems');
    const items = this.items.filter((o) => o.service === service && o.event.id === eventId);
    if (items.length === 0) throw new ServiceError('not_found', 'no such event');
    return { items, masked: false, timestamp: undefined, skipped: 0 };
  }

  async readItem(key: AccessKeyRef, service: Service, itemId: string, opts?: RequestOptions): Promise<Opportunity> {
    this.calls.push({ method: 'readItem', accessKey: key.accessKey, service, id: itemId, ...(opts ? { opts } : {}) });
    this.maybeFail('readItem');
    const item = this.items.find((o) => o.service === service && o.id === itemId);
    if (!item) throw new ServiceError('not_found', 'no such item');
    return item;
  }

  async dictionaries(lang: 'en' | 'ru'): Promise<Dictionaries | undefined> {
    this.calls.push({ method: 'dictionaries', lang });
    return this.dictsAvailable ? fixtureDictionaries(lang) : undefined;
  }

  cachedDictionaries(lang: 'en' | 'ru'): Dictionaries | undefined {
    return this.dictsAvailable ? fixtureDictionaries(lang) : undefined;
  }

  budget(): BudgetView {
    return { tokensLeft: 20, readsLeft: 30, tokenExpiresInMs: 0, pausedForMs: 0 };
  }

  forgetKey(accessKey: string): void {
    this.calls.push({ method: 'forgetKey', accessKey });
  }

  async close(): Promise<void> {}
}

/** A SchedulerPort that records refreshes and answers coverage and latest items from tables. */
export class FakeScheduler implements SchedulerPort {
  readonly refreshed: number[] = [];
  latest = new Map<number, Opportunity[]>();
  /** Coverage by user (current services). */
  coverageTable = new Map<number, Partial<Record<Service, ServiceCoverage>>>();
  /** Coverage when `extra` is added (by user and service). */
  withExtra = new Map<string, Partial<Record<Service, ServiceCoverage>>>();

  refreshUser(userId: number): void {
    this.refreshed.push(userId);
  }

  coverage(userId: number, extra?: Service): Partial<Record<Service, ServiceCoverage>> {
    if (extra) {
      const planned = this.withExtra.get(`${userId}:${extra}`);
      if (planned) return planned;
      return { ...(this.coverageTable.get(userId) ?? {}), [extra]: { share: 1, intervalMs: 5000, state: 'active' } };
    }
    return this.coverageTable.get(userId) ?? {};
  }

  latestItems(userId: number, service?: Service): Opportunity[] {
    const all = this.latest.get(userId) ?? [];
    return service ? all.filter((o) => o.service === service) : all;
  }
}

export const covered = (share: number, intervalMs = 5000): ServiceCoverage => ({ share, intervalMs, state: 'active' });
