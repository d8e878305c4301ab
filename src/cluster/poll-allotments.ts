/**
 * Poll allotments, a process's side (Redis's: poll-allotment-store.ts). A worker polls its users'
 * scopes at the limit's pace, and asking the shared window in Redis before each read was most of
 * the cluster's Redis commands a read. So the process polling a scope claims most of its limit —
 * all but the interactive cap, which stays in Redis for the fronts' lookups — and admits its polls
 * within that share on its own, as the embedded process does; a poll beyond the share, and every
 * lookup, still asks the window, which then admits only the rest. The two parts never add up to more
 * than the limit, whichever process sends.
 *
 * A holder admits on its own only while its last renewal is fresh (sent under `ALLOTMENT_LOCAL_MS`
 * ago, less a second), and Redis keeps its claim a window longer than that: a holder that stops
 * renewing (killed, paused, cut off) stops admitting before anyone can take its share, and its
 * last sends leave the window before the claim does. One that lets go (idle, wanted by another
 * process, or closing) gives back the sends it still counts. The renewals of all held scopes are
 * one script every `ALLOTMENT_RENEW_MS`, whatever their number.
 *
 * A 429 pause of a held scope set by another process arrives on the allotments' channel: the
 * holder's local admissions never see the window's pause key.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { resubscribing } from '../lib/redis-resubscribe.js';
import type { Logger } from '../logger.js';
import type { LimitScope } from '../service/limits.js';
import type { AllotmentStore } from './poll-allotment-store.js';
import { bounded } from './redis-calls.js';

/** How often a process renews the allotments it holds (one script for all). */
export const ALLOTMENT_RENEW_MS = 3_000;
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
  /** Local admissions stop at this time (local clock) unless a renewal moves it. */
  validUntil: number;
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
    if (now >= h.validUntil) return undefined;
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
    if (!h || now >= h.validUntil) return undefined;
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
        const validUntil = now + ALLOTMENT_LOCAL_MS - ALLOTMENT_SAFETY_MS;
        const already = this.held.get(ask.name);
        if (already) {
          // Claimed twice (the first answer came late): counting its sends twice only counts more.
          already.sends.push(...sends);
          already.validUntil = Math.max(already.validUntil, validUntil);
          return;
        }
        const h: Held = { ask, sends, lent: 0, lending: false, validUntil, lastPollAt: at };
        if (this.closed) {
          void this.letGo(h);
          return;
        }
        this.held.set(ask.name, h);
        this.start();
      },
      // A claim answered after its bound may still have taken the share: its renewal then fails
      // over to nothing (never renewed) and the claim lapses a window later.
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
    while (!this.closed) {
      await this.opts.clock.sleep(ALLOTMENT_RENEW_MS, this.stop.signal);
      if (this.closed) return;
      await this.round();
    }
  }

  /** Lets go of idle scopes and renews the rest in one script. */
  async round(): Promise<void> {
    const now = this.opts.clock.now();
    const kept: Held[] = [];
    for (const h of this.held.values()) {
      if (now - h.lastPollAt >= ALLOTMENT_IDLE_MS) void this.letGo(h);
      else kept.push(h);
    }
    if (kept.length === 0) return;
    for (const h of kept) if (h.lent > 0 && !h.lending) void this.takeBack(h);
    const holdMs = ALLOTMENT_LOCAL_MS + Math.max(...kept.map((h) => h.ask.windowMs));
    try {
      const call = this.opts.store.renew(kept.map((h) => ({ scope: h.ask.name, share: shareOf(h) })), holdMs);
      const renewed = await bounded(call, { what: 'the poll allotments\' renewal', timeoutMs: this.opts.timeoutMs });
      kept.forEach((h, i) => {
        const current = this.held.get(h.ask.name) === h;
        if (!renewed[i]) {
          if (current) this.held.delete(h.ask.name);
        } else if (current) {
          h.validUntil = Math.max(h.validUntil, now + ALLOTMENT_LOCAL_MS - ALLOTMENT_SAFETY_MS);
        } else {
          // Let go while the renewal was on its way, which then took the share again: let go again.
          void this.letGo(h);
        }
      });
    } catch (err) {
      // Each share lapses on its own: polls ask the shared window until a renewal goes through.
      this.opts.logger.warn({ err, held: kept.length }, 'could not renew the poll allotments (polls ask the shared window until Redis answers)');
    }
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
