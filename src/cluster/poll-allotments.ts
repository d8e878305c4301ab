/**
 * Poll allotments, a process's side (Redis's: poll-allotment-store.ts). A worker polls its users'
 * scopes at the limit's pace, and asking the shared window in Redis before each read was most of
 * the cluster's Redis commands a read. So the process polling a scope claims most of its limit —
 * all but the interactive cap, which stays in Redis for the fronts' lookups — and admits its polls
 * within that share on its own, as the embedded process does; a poll beyond the share, and every
 * lookup, still asks the window, which then admits only the rest. The two parts never add up to more
 * than the limit, whichever process sends.
 *
 * A holder admits on its own only while its last "alive" renewal is fresh (sent under
 * `ALLOTMENT_LOCAL_MS` ago, less a second), and Redis keeps it alive a window longer than that: a
 * holder that stops renewing (killed, paused, cut off) stops admitting before anyone can take its
 * share, and its last sends leave the window before its claims stop counting. One that lets go
 * (idle, wanted by another process, or closing) gives back the sends it still counts. The renewal
 * is one command every `ALLOTMENT_RENEW_MS`, whatever the number of scopes held; their keys are kept
 * every `ALLOTMENT_KEEP_MS`.
 *
 * A 429 pause of a held scope set by another process arrives on the allotments' channel: the
 * holder's local admissions never see the window's pause key.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { resubscribing } from '../lib/redis-resubscribe.js';
import type { Logger } from '../logger.js';
import type { LimitScope } from '../service/limits.js';
import { ALLOTMENT_KEY_TTL_MS, type AllotmentStore } from './poll-allotment-store.js';
import { bounded } from './redis-calls.js';

/** How often a process says it is alive (one command, whatever the number of allotments it holds). */
export const ALLOTMENT_RENEW_MS = 3_000;
/** How often a process keeps its allotments' keys (one script for all), well within their hour. */
export const ALLOTMENT_KEEP_MS = 600_000;
/** A holder admits on its own until this long after it sent its last renewal, less `ALLOTMENT_SAFETY_MS`. */
export const ALLOTMENT_LOCAL_MS = 10_000;
/** Redis's time and this process's may differ by a few ms; the renewal's answer may come late: a second covers both. */
const ALLOTMENT_SAFETY_MS = 1_000;
/** A holder told that another process polls its scope, while it polled the scope itself within this long, claims it again only after ALLOTMENT_SHARED_RETRY_MS. */
export const ALLOTMENT_WANT_IDLE_MS = 5_000;
/** A holder lets go of a scope it has not polled for this long. */
export const ALLOTMENT_IDLE_MS = 60_000;
/** A claim refused because another process holds the scope (now told to let go), or one that failed, is tried again no sooner than this. */
export const ALLOTMENT_CLAIM_RETRY_MS = 3_000;
/** A scope another process polls too is claimed again no sooner than this (its window is shared as it is). */
export const ALLOTMENT_SHARED_RETRY_MS = 60_000;
/** How long a holder tries to free a slot for a lookup (which waits about two slots for it). */
export const ALLOTMENT_LEND_WAIT_MS = 5_000;
/** While its oldest send is in flight, a holder lending a slot looks again this often. */
const LEND_POLL_MS = 250;
/** Scopes whose last claim time is kept (forgotten all at once past it). */
const CLAIMS_KEPT = 10_000;

/** One send admitted within a held share: counted until a window after `at`, and while in flight. */
export interface LocalSend {
  at: number;
  inFlight: boolean;
  /** Counted in Redis too (a claim's seed): never given back, Redis keeps counting it. */
  inWindow?: true;
}

export interface AllotmentAsk {
  /** The shared window's name (limit-window.ts), which names the allotment too. */
  name: string;
  scope: LimitScope;
  /** The window's key in Redis. */
  windowKey: string;
  limit: number;
  /** What the holder may admit on its own: the limit less the interactive cap. */
  share: number;
  /** How long a send counts (the window, its margin and the release slack). */
  windowMs: number;
}

interface Held {
  ask: AllotmentAsk;
  sends: LocalSend[];
  /** Slots of the share lent to lookups (the window's part is that much larger in Redis). */
  lent: number;
  /** A lookup waits: the next slot of the share that frees is lent, not used. */
  lending: boolean;
  /** Local admissions stop at this time (local clock) unless its key is kept. */
  keptUntil: number;
  lastPollAt: number;
}

export interface PollAllotmentsOptions {
  store: AllotmentStore;
  /** Opens the connection that listens on the allotments' channel (once, when the first share is held). */
  subscriber: () => Redis;
  clock: Clock;
  logger: Logger;
  timeoutMs: number;
  /** Another process got a 429 in a held scope: pause it here for `ms`. */
  onPause(scope: LimitScope, ms: number): void;
}

export interface AllotmentStats {
  held: number;
  /** Polls admitted within a held share (no script). */
  local: number;
}

export class PollAllotments {
  private readonly held = new Map<string, Held>();
  /** When each scope may be claimed again (local clock). */
  private readonly claimAfter = new Map<string, number>();
  private readonly stop = new AbortController();
  private sub: Redis | undefined;
  private looping = false;
  /** Local admissions of every held scope stop at this time (local clock) unless an alive renewal moves it. */
  private aliveUntil = 0;
  /** How long Redis keeps this process alive after a renewal: a window past its last local admission. */
  private holdMs = 0;
  private closed = false;
  private localSends = 0;

  constructor(private readonly opts: PollAllotmentsOptions) {}

  /**
   * A poll of `ask.scope` within this process's share: the send to settle (`answered` or
   * `cancelled`), or undefined (the share is not held, lapsed or used up: ask the window). A scope
   * not held is claimed in the background.
   */
  admit(ask: AllotmentAsk): LocalSend | undefined {
    const h = this.held.get(ask.name);
    const now = this.opts.clock.now();
    if (!h) {
      this.claim(ask, now);
      return undefined;
    }
    h.lastPollAt = now;
    if (now >= this.aliveUntil || now >= h.keptUntil) return undefined;
    prune(h.sends, now - h.ask.windowMs);
    if (h.sends.length >= shareOf(h) - (h.lending ? 1 : 0)) return undefined;
    const send = { at: now, inFlight: true };
    h.sends.push(send);
    this.localSends += 1;
    return send;
  }

  /** The answer came: a slow one counts from now, as the window's `release` would count it. */
  answered(send: LocalSend, slow: boolean): void {
    send.inFlight = false;
    if (slow) send.at = this.opts.clock.now();
  }

  /** Nothing was sent. */
  cancelled(name: string, send: LocalSend): void {
    const sends = this.held.get(name)?.sends;
    const i = sends?.indexOf(send) ?? -1;
    if (sends && i >= 0) sends.splice(i, 1);
  }

  /** ms until the held share of `name` has room again, when that is known (held, fresh, its oldest send answered). */
  freeInMs(name: string): number | undefined {
    const h = this.held.get(name);
    const now = this.opts.clock.now();
    if (!h || now >= this.aliveUntil || now >= h.keptUntil) return undefined;
    prune(h.sends, now - h.ask.windowMs);
    if (h.sends.length < shareOf(h)) return 1;
    const answered = h.sends.filter((x) => !x.inFlight);
    if (answered.length === 0) return undefined;
    return Math.max(1, Math.min(...answered.map((x) => x.at)) + h.ask.windowMs - now);
  }

  stats(): AllotmentStats {
    return { held: this.held.size, local: this.localSends };
  }

  /** Lets go of every share (giving back the sends it counts) and stops listening. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop.abort();
    await Promise.all([...this.held.values()].map((h) => this.letGo(h)));
    this.sub?.disconnect();
  }

  private claim(ask: AllotmentAsk, now: number): void {
    if (this.closed || ask.share < 1) return;
    if (now < (this.claimAfter.get(ask.name) ?? 0)) return;
    this.holdOff(ask.name, now + ALLOTMENT_CLAIM_RETRY_MS);
    const holdMs = ALLOTMENT_LOCAL_MS + ask.windowMs;
    const call = this.opts.store.claim({ windowKey: ask.windowKey, scope: ask.name, share: ask.share, limit: ask.limit, windowMs: ask.windowMs, holdMs });
    bounded(call, { what: 'a poll allotment claim', timeoutMs: this.opts.timeoutMs }).then(
      (claim) => {
        if (!claim.ok) {
          if (claim.why === 'shared') this.holdOff(ask.name, now + ALLOTMENT_SHARED_RETRY_MS);
          return;
        }
        const at = this.opts.clock.now();
        const sends: LocalSend[] = claim.ages.map((age) => ({ at: at - age, inFlight: false, inWindow: true }));
        this.aliveUntil = Math.max(this.aliveUntil, now + ALLOTMENT_LOCAL_MS - ALLOTMENT_SAFETY_MS);
        this.holdMs = Math.max(this.holdMs, holdMs);
        const keptUntil = now + ALLOTMENT_KEY_TTL_MS - ALLOTMENT_KEEP_MS;
        const already = this.held.get(ask.name);
        if (already) {
          // Claimed twice (the first answer came late): counting its sends twice only counts more.
          already.sends.push(...sends);
          already.keptUntil = Math.max(already.keptUntil, keptUntil);
          return;
        }
        const h: Held = { ask, sends, lent: 0, lending: false, keptUntil, lastPollAt: at };
        if (this.closed) {
          void this.letGo(h);
          return;
        }
        this.held.set(ask.name, h);
        this.start();
      },
      // A claim answered after its bound may still have taken the share: nobody here holds it, so
      // the next claim of this process takes it again, or another's once this one is not alive.
      (err: unknown) => this.opts.logger.debug({ err }, 'a poll allotment claim failed (polls ask the shared window meanwhile)'),
    );
  }

  private holdOff(name: string, until: number): void {
    if (this.claimAfter.size >= CLAIMS_KEPT && !this.claimAfter.has(name)) this.claimAfter.clear();
    this.claimAfter.set(name, until);
  }

  private start(): void {
    if (this.looping) return;
    this.looping = true;
    this.listen();
    void this.loop();
  }

  private async loop(): Promise<void> {
    let rounds = 0;
    while (!this.closed) {
      await this.opts.clock.sleep(ALLOTMENT_RENEW_MS, this.stop.signal);
      if (this.closed) return;
      rounds += 1;
      await this.round(rounds % Math.round(ALLOTMENT_KEEP_MS / ALLOTMENT_RENEW_MS) === 0);
    }
  }

  /** Lets go of idle scopes, says this process is alive (one command), and now and then keeps the keys. */
  private async round(keep: boolean): Promise<void> {
    const now = this.opts.clock.now();
    // Alive no more for a while: another process may hold these scopes by now (each let-go checks).
    const lapsed = now >= this.aliveUntil;
    const kept: Held[] = [];
    for (const h of this.held.values()) {
      if (lapsed || now - h.lastPollAt >= ALLOTMENT_IDLE_MS) void this.letGo(h);
      else kept.push(h);
    }
    if (kept.length === 0) return;
    for (const h of kept) if (h.lent > 0 && !h.lending) void this.takeBack(h);
    try {
      await bounded(this.opts.store.alive(this.holdMs), { what: 'the poll allotments\' renewal', timeoutMs: this.opts.timeoutMs });
      this.aliveUntil = Math.max(this.aliveUntil, now + ALLOTMENT_LOCAL_MS - ALLOTMENT_SAFETY_MS);
      if (keep) await this.keep(kept, now);
    } catch (err) {
      // The shares lapse on their own: polls ask the shared window until a renewal goes through.
      this.opts.logger.warn({ err, held: kept.length }, 'could not renew the poll allotments (polls ask the shared window until Redis answers)');
    }
  }

  private async keep(kept: Held[], now: number): Promise<void> {
    const call = this.opts.store.keep(kept.map((h) => ({ scope: h.ask.name, share: shareOf(h) })));
    const still = await bounded(call, { what: 'the poll allotments\' keys', timeoutMs: this.opts.timeoutMs });
    kept.forEach((h, i) => {
      const current = this.held.get(h.ask.name) === h;
      if (!still[i]) {
        if (current) this.held.delete(h.ask.name);
      } else if (current) {
        h.keptUntil = Math.max(h.keptUntil, now + ALLOTMENT_KEY_TTL_MS - ALLOTMENT_KEEP_MS);
      } else {
        // Let go while the keeping was on its way, which then set the key again: let go again.
        void this.letGo(h);
      }
    });
  }

  /**
   * A lookup waits in the window: lends it the next slot of the share that frees (at once when one
   * is free), so that it waits no longer than it would for the window's own next slot. Gives up
   * after ALLOTMENT_LEND_WAIT_MS: the lookup has stopped waiting by then.
   */
  private async lend(h: Held): Promise<void> {
    if (h.lending || h.lent >= h.ask.limit - h.ask.share) return;
    h.lending = true;
    const until = this.opts.clock.now() + ALLOTMENT_LEND_WAIT_MS;
    try {
      for (;;) {
        const now = this.opts.clock.now();
        if (this.closed || this.held.get(h.ask.name) !== h || now >= until) return;
        prune(h.sends, now - h.ask.windowMs);
        if (h.sends.length < shareOf(h)) break;
        const answered = h.sends.filter((x) => !x.inFlight).map((x) => x.at);
        const waitMs = answered.length > 0 ? Math.min(...answered) + h.ask.windowMs - now : LEND_POLL_MS;
        await this.opts.clock.sleep(Math.max(1, Math.min(waitMs, LEND_POLL_MS * 4)), this.stop.signal);
      }
      // Lowered here first: from now on this process admits within the smaller share.
      h.lent += 1;
      await bounded(this.opts.store.lend(h.ask.name, shareOf(h)), { what: 'a poll allotment\'s loan', timeoutMs: this.opts.timeoutMs });
    } catch (err) {
      this.opts.logger.debug({ err }, 'could not lend a lookup a slot (it waits for the window\'s own)');
    } finally {
      h.lending = false;
    }
  }

  /** Takes back one lent slot once no lookup waits and the window's sends fit in its part without it. */
  private async takeBack(h: Held): Promise<void> {
    const ask = h.ask;
    try {
      const call = this.opts.store.raise({ windowKey: ask.windowKey, scope: ask.name, share: shareOf(h) + 1, limit: ask.limit, windowMs: ask.windowMs });
      if ((await bounded(call, { what: 'a poll allotment\'s raise', timeoutMs: this.opts.timeoutMs })) && h.lent > 0) h.lent -= 1;
    } catch (err) {
      this.opts.logger.debug({ err }, 'could not take back a lent slot (tried at the next renewal)');
    }
  }

  private async letGo(h: Held): Promise<void> {
    if (this.held.get(h.ask.name) === h) this.held.delete(h.ask.name);
    const now = this.opts.clock.now();
    prune(h.sends, now - h.ask.windowMs);
    const ages = h.sends.filter((s) => !s.inWindow).map((s) => (s.inFlight ? 0 : now - s.at));
    try {
      await bounded(this.opts.store.release(h.ask.name, h.ask.windowKey, h.ask.windowMs, ages), { what: 'a poll allotment\'s release', timeoutMs: this.opts.timeoutMs });
    } catch (err) {
      // Not given back: the claim lapses in Redis a window after this process's last local send.
      this.opts.logger.debug({ err }, 'could not give a poll allotment back (it lapses on its own)');
    }
  }

  private listen(): void {
    const sub = this.opts.subscriber();
    this.sub = sub;
    let warned = false;
    sub.on('error', (err: Error) => {
      if (warned) return;
      warned = true;
      this.opts.logger.warn({ err }, 'the poll allotments\' channel is unreachable (retrying; meanwhile wants and pauses from other processes are missed)');
    });
    sub.on('ready', () => {
      warned = false;
    });
    sub.on('message', (_channel: string, text: string) => this.told(text));
    const subscribe = resubscribing(sub, (err) => this.opts.logger.warn({ err }, 'could not listen to the poll allotments\' channel again'));
    subscribe(this.opts.store.channel).catch((err: unknown) => this.opts.logger.warn({ err }, 'could not listen to the poll allotments\' channel'));
  }

  private told(text: string): void {
    const [what, name, ms] = text.split(' ');
    const h = name === undefined ? undefined : this.held.get(name);
    if (!h) return;
    if (what === 'lookup') {
      void this.lend(h);
    } else if (what === 'pause') {
      const pauseMs = Number(ms);
      if (Number.isFinite(pauseMs) && pauseMs > 0) this.opts.onPause(h.ask.scope, pauseMs);
    } else if (what === 'want') {
      // Its users moved to another process, or it polls the scope too: either way the share is not this process's alone.
      if (this.opts.clock.now() - h.lastPollAt < ALLOTMENT_WANT_IDLE_MS) this.holdOff(h.ask.name, this.opts.clock.now() + ALLOTMENT_SHARED_RETRY_MS);
      void this.letGo(h);
    }
  }
}

/** What the holder admits on its own now: its share less what it lent. */
function shareOf(h: Held): number {
  return h.ask.share - h.lent;
}

/** Drops the sends answered before `since`: they no longer count. */
function prune(sends: LocalSend[], since: number): void {
  let kept = 0;
  for (const s of sends) if (s.inFlight || s.at > since) sends[kept++] = s;
  sends.length = kept;
}
