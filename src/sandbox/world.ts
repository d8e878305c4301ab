/**
 * The simulated world: per service, events and the opportunities on them, which appear, move and
 * disappear as a discrete-event simulation on the clock. Every task (a move, a death, a birth, an
 * event's end) has a time; advancing to `now` runs the due tasks in (time, sequence) order, so the
 * state at a time depends only on the seed and the start time, never on when it was looked at.
 * Each item draws from its own random stream, and injected items from a separate one, so a test
 * that injects does not change the rest of the world.
 *
 * The model (options, events, items) is in `world-model.ts`, an item's odds at birth and at each
 * move in `item-odds.ts`, the wire form in `to-wire.ts`; this file runs the agenda.
 */
import { pickFixture, pickSport } from './catalog.js';
import { ALL_BOOKMAKERS, LIVE_BOOKMAKERS } from './dictionaries.js';
import { MinHeap } from './heap.js';
import { holdLegs, moveItem, priceItem, releaseLegs } from './item-odds.js';
import { createRng, type Rng } from './prng.js';
import { SERVICES, isLive, kindOf, type Kind, type Service } from '../service/services.js';
import { valuesOf } from './to-wire.js';
import type { InjectOptions, SimEvent, SimItem, SimSubEvent, WorldChange, WorldOptions } from './world-model.js';

/** One timed task of the agenda (one monomorphic shape keeps the hot loop fast). */
interface Task {
  at: number;
  seq: number;
  type: 'move' | 'death' | 'birth' | 'eventEnd';
  item: SimItem | undefined;
  event: SimEvent | undefined;
}

const MIN_LIFETIME_MS = 5_000;
/** Events a birth tries before it waits a moment (every bookmaker already quotes the markets drawn). */
const PRICE_ATTEMPTS = 8;
const CHANGE_LOG_CAP = 100_000;
const APPEARED_CAP = 200_000;

/** The world of one service. */
class ServiceWorld {
  readonly items = new Map<string, SimItem>();
  readonly events = new Map<string, SimEvent>();
  /** Events made for injected items, one each, so an injection never takes a natural item's prices. */
  private readonly injectedEvents = new Map<string, SimEvent>();
  private readonly agenda = new MinHeap<Task>();
  private seq = 0;
  private naturalCount = 0;
  private injectedCount = 0;
  private readonly eventsRng: Rng;
  private readonly birthsRng: Rng;
  private readonly injectRng: Rng;
  private readonly kind: Kind;
  private readonly live: boolean;
  private readonly bookmakers: readonly number[];

  constructor(
    readonly service: Service,
    private readonly opts: WorldOptions,
    private readonly record: (c: WorldChange, item: SimItem) => void,
  ) {
    this.kind = kindOf(service);
    this.live = isLive(service);
    this.bookmakers = this.live ? LIVE_BOOKMAKERS : ALL_BOOKMAKERS;
    this.eventsRng = createRng(opts.seed, `events:${service}`);
    this.birthsRng = createRng(opts.seed, `births:${service}`);
    this.injectRng = createRng(opts.seed, `inject:${service}`);
    for (let i = 0; i < Math.max(1, opts.eventsPerService); i++) this.addEvent(opts.startMs, true);
    for (let i = 0; i < opts.itemsPerService; i++) {
      const age = Math.round(this.birthsRng.uniform(0, opts.meanLifetimeMs));
      if (!this.spawn(opts.startMs, { initialAgeMs: age })) this.schedule(opts.startMs + 1_000, 'birth');
    }
    if (opts.profile) this.schedule(opts.startMs + opts.profile.birthGapMs(this.birthsRng), 'birth');
  }

  /** Runs every task due by `now`. */
  advance(now: number): void {
    for (;;) {
      const next = this.agenda.peek();
      if (!next || next.at > now) break;
      this.agenda.pop();
      this.run(next);
    }
  }

  /** A new item now, outside the natural flow (it is not replaced when it goes). */
  inject(now: number, { profit, legAgesMs, bookmakers }: InjectOptions): SimItem {
    this.advance(now);
    const event = this.addEvent(now, false, this.injectRng, this.injectedEvents);
    const item = this.spawn(now, { injected: true, event, ...(profit === undefined ? {} : { profit }), ...(bookmakers && { bookmakers }) });
    if (!item) throw new Error(`an injected item found no free bookmaker on its own event${bookmakers ? ` (${bookmakers.length} given: give one per outcome, 3 for a three-way market)` : ''}`);
    // Legs of known age (a negative age is a time in the future), or none (null).
    legAgesMs?.forEach((age, i) => {
      const leg = item.legs[i];
      if (!leg) return;
      if (age === null) leg.noUpdated = true;
      else leg.updatedMs = now - age;
    });
    return item;
  }

  private schedule(at: number, type: Task['type'], item?: SimItem, event?: SimEvent): void {
    this.agenda.push({ at, seq: this.seq++, type, item, event });
  }

  private run(task: Task): void {
    const { item, event } = task;
    switch (task.type) {
      case 'move':
        if (!item?.alive) return;
        if (moveItem(item, task.at)) this.record({ at: task.at, service: this.service, type: 'moved', id: item.id }, item);
        this.schedule(task.at + (this.opts.profile ? this.opts.profile.moveGapMs(item.rng) : this.opts.moveEveryMs), 'move', item);
        return;
      case 'death':
        if (item?.alive) this.kill(item, task.at);
        return;
      case 'birth':
        if (!this.spawn(task.at, {})) this.schedule(task.at + 1_000, 'birth');
        if (this.opts.profile) this.schedule(task.at + this.opts.profile.birthGapMs(this.birthsRng), 'birth');
        return;
      case 'eventEnd': {
        if (!event) return;
        const ended = event;
        const natural = this.events.delete(ended.id);
        this.injectedEvents.delete(ended.id);
        for (const onIt of [...this.items.values()]) if (onIt.event === ended) this.kill(onIt, task.at);
        if (natural) this.addEvent(task.at, false);
        return;
      }
    }
  }

  private addEvent(at: number, initial: boolean, rng = this.eventsRng, into = this.events): SimEvent {
    const sport = pickSport(rng);
    const fixture = pickFixture(rng, sport);
    let id: string;
    do id = String(rng.int(10_000_000, 99_999_999));
    while (this.events.has(id) || this.injectedEvents.has(id));
    let startMs: number;
    let endMs: number;
    if (this.live) {
      // Live events are under way: a fresh one kicked off a few minutes ago.
      const elapsed = initial ? rng.uniform(0, 0.8 * sport.liveDurationMs) : rng.uniform(0, 10 * 60_000);
      startMs = Math.round((at - elapsed) / 60_000) * 60_000;
      if (startMs > at) startMs -= 60_000;
      endMs = startMs + sport.liveDurationMs;
    } else {
      startMs = Math.ceil((at + rng.uniform(30 * 60_000, 48 * 3_600_000)) / 300_000) * 300_000;
      endMs = startMs;
    }
    const subEvents = new Map<number, SimSubEvent>();
    for (const b of this.bookmakers) {
      subEvents.set(b, { id: `${id}-${b}`, bookmakerId: b, originalId: String(rng.int(1_000_000, 999_999_999)) });
    }
    const event: SimEvent = { id, sport, ...fixture, startMs, endMs, live: this.live, subEvents, quotes: { held: new Map(), chances: new Map() } };
    into.set(id, event);
    this.schedule(endMs, 'eventEnd', undefined, event);
    return event;
  }

  /** A new item, or `undefined` when the events tried have no free bookmaker for the markets drawn. */
  private spawn(at: number, how: { injected?: boolean; profit?: number; initialAgeMs?: number; event?: SimEvent; bookmakers?: readonly number[] }): SimItem | undefined {
    const injected = how.injected === true;
    const pickRng = injected ? this.injectRng : this.birthsRng;
    const label = injected ? `item:${this.service}:inj:${this.injectedCount++}` : `item:${this.service}:${this.naturalCount++}`;
    const rng = createRng(this.opts.seed, label);
    const createdMs = at - (how.initialAgeMs ?? 0);
    let event = how.event ?? pickRng.pick([...this.events.values()]);
    let legs = priceItem(rng, this.kind, how.bookmakers ?? this.bookmakers, event, how.profit, createdMs, how.bookmakers !== undefined);
    for (let attempt = 1; !legs && !how.event && attempt < PRICE_ATTEMPTS; attempt++) {
      event = pickRng.pick([...this.events.values()]);
      legs = priceItem(rng, this.kind, this.bookmakers, event, how.profit, createdMs);
    }
    if (!legs) return undefined;
    let id: string;
    do id = pickRng.hex(16);
    while (this.items.has(id));
    // Drawn in this order (group, lifetime, moves) so a world without a profile is the same as before.
    const groupId = rng.chance(0.75) ? (event.sport.groups[0] ?? 1) : rng.pick(event.sport.groups);
    const profile = this.opts.profile;
    const lifetimeMs = profile ? profile.lifetimeMs(rng) : Math.max(MIN_LIFETIME_MS, Math.round(rng.exp(this.opts.meanLifetimeMs)));
    const item: SimItem = {
      id,
      service: this.service,
      kind: this.kind,
      event,
      createdMs,
      groupId,
      legs: legs.legs,
      probability: legs.probability,
      band: { min: 0, max: 0 },
      deathMs: at + lifetimeMs,
      injected,
      rng,
      alive: true,
      moves: profile ? profile.moves(rng) : true,
    };
    const v = valuesOf(item).value;
    const band = this.kind === 'arbs' ? [0.05, 20] : this.kind === 'middles' ? [-8, 2] : [0.2, 35];
    item.band = { min: Math.min(band[0] as number, v), max: Math.max(band[1] as number, v) };
    this.items.set(id, item);
    holdLegs(item);
    this.record({ at: createdMs, service: this.service, type: 'appeared', id }, item);
    const m = this.opts.moveEveryMs;
    if (profile) {
      if (item.moves) this.schedule(at + profile.moveGapMs(rng), 'move', item);
    } else this.schedule(createdMs + m * Math.max(1, Math.ceil((at - createdMs) / m)), 'move', item);
    this.schedule(item.deathMs, 'death', item);
    return item;
  }

  private kill(item: SimItem, at: number): void {
    item.alive = false;
    this.items.delete(item.id);
    releaseLegs(item);
    // An injected item's event was its own: it goes with it.
    if (item.injected) this.injectedEvents.delete(item.event.id);
    this.record({ at, service: this.service, type: 'gone', id: item.id }, item);
    if (item.injected || this.opts.profile) return;
    // Replace a natural item after a short pause, so about itemsPerService stay alive.
    const delay = Math.max(1_000, Math.round(this.birthsRng.exp(this.opts.meanLifetimeMs / 10)));
    this.schedule(at + delay, 'birth');
  }
}

/** The worlds of all six services, advanced lazily to the clock. */
export class World {
  private readonly worlds = new Map<Service, ServiceWorld>();
  private readonly appeared = new Map<string, number>();
  private readonly log: WorldChange[] = [];

  constructor(readonly opts: WorldOptions) {
    const record = (c: WorldChange): void => {
      if (c.type === 'appeared') {
        this.appeared.set(c.id, c.at);
        // Bounded for long runs: the oldest ids are forgotten first (Map keeps insertion order).
        if (this.appeared.size > APPEARED_CAP) {
          for (const id of this.appeared.keys()) {
            this.appeared.delete(id);
            if (this.appeared.size <= APPEARED_CAP / 2) break;
          }
        }
      }
      this.log.push(c);
      if (this.log.length > CHANGE_LOG_CAP) this.log.splice(0, this.log.length - CHANGE_LOG_CAP / 2);
    };
    for (const s of SERVICES) this.worlds.set(s, new ServiceWorld(s, opts, record));
  }

  private of(service: Service): ServiceWorld {
    const w = this.worlds.get(service);
    if (!w) throw new Error(`unknown service ${service}`);
    return w;
  }

  /** Brings every service's world to `now`. */
  advanceAll(now: number): void {
    for (const w of this.worlds.values()) w.advance(now);
  }

  /** The items alive at `now`, in order of appearance. */
  alive(service: Service, now: number): SimItem[] {
    const w = this.of(service);
    w.advance(now);
    return [...w.items.values()];
  }

  /** One alive item by id at `now`. */
  item(service: Service, id: string, now: number): SimItem | undefined {
    const w = this.of(service);
    w.advance(now);
    return w.items.get(id);
  }

  inject(service: Service, now: number, opts: InjectOptions = {}): SimItem {
    return this.of(service).inject(now, opts);
  }

  /** When an item (alive or gone) appeared, ms. */
  appearedAt(id: string): number | undefined {
    return this.appeared.get(id);
  }

  /** The changes recorded at or after `sinceMs` (bounded history), oldest first. */
  changes(sinceMs: number, service?: Service): WorldChange[] {
    return this.log.filter((c) => c.at >= sinceMs && (service === undefined || c.service === service));
  }
}
