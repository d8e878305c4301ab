/**
 * The notifier: diff events → alerts. It implements the scheduler's `Notifier` port
 * (src/scheduler/port.ts) on the alerts side, so the scheduler knows nothing of formatting or
 * Telegram; app.ts hands it to the scheduler.
 *
 * Each new item becomes a formatted message handed to the outbox (whose message id is then kept in the item's alert entry); moves, returns and
 * disappearances edit that message. Where a send's call stopped waiting for its answer (a cluster's
 * worker, `onNoAnswer`), the entry keeps the send's key, and the diff asks for the message id (a
 * `lookup` event, `messageIdOf`) when the alert has a move or its end to show. Quiet hours hold alerts until the quiet period ends (the
 * outbox then sends one summary); muted events and snoozed filters get no new alerts. Every alert
 * and edit is named by an idempotency key (idempotency.ts), so a cluster sends it once.
 *
 * How each alert sounds (loud, silent, dropped when every live leg is stale) and when a rise of its
 * profit earns a loud reply is decided in loudness.ts.
 *
 * Nothing here waits for Telegram: sends and edits are queued and settle later, so a slow chat
 * never slows the scheduler. Nothing here throws either: a failure is logged and counted.
 */
import { formatAlert, formatShortLine, type AlertState, type AlertView } from './format.js';
import { quietUntil } from './time.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { ServiceClient } from '../service/client-types.js';
import { namesFor, type Names } from '../service/dictionaries-model.js';
import type { Opportunity } from '../service/opportunity.js';
import { minProfitFor } from '../service/filter-model.js';
import { itemGroups, leftOutBy } from '../service/market-groups.js';
import type { AlertEntry, UserRecord } from '../store/schema.js';
import type { PrintStore, Store } from '../store/port.js';
import { printOf } from './alert-print.js';
import { placedButtons } from './alert-buttons.js';
import { isMutedItem } from '../store/mutes.js';
import { MinuteCounter } from '../scheduler/minute-counter.js';
import type { Notifier, SubscriptionRef } from '../scheduler/port.js';
import { draftText, noticeText } from './notice-text.js';
import type { MetricsPort } from '../health/observe.js';
import type { HeldItem, OutboxPort } from '../outbox/port.js';
import { alertKey, editKey } from './idempotency.js';
import { encodeAlertAction } from './callbacks.js';
import { markKey } from '../ledger/marks.js';
import { alertTexts } from './alert-texts.js';
import { metrics, serviceMismatch } from './headline-figures.js';
import { newAlertManner, RE_ALERT_FRESH_MS, reAlertFor, reAlertText, staleAfterFor, type StaleDefaults } from './loudness.js';
import { reAlertKey } from './idempotency.js';
import { notAnArbForYou } from './arb-for-you.js';
import { firstReadSummary, SUMMARY_FROM } from './first-read.js';

/** Item ids whose service figure disagreed with the odds, logged once each; forgotten past this many. */
const MISMATCH_MEMORY = 10_000;

/**
 * Why a new item gets no alert although the service's filter passed it: a leg at a bookmaker the
 * user marked closed, an arb whose profit after the user's commissions (and with lay legs read
 * as lay bets) is below the filter's min_profit — the service filtered on its own figure — or an
 * arb on which no stakes within the user's steps and caps give a guaranteed profit (it stays
 * available to /item, /event and inline, titled "Not an arb for you").
 */
export function dropReason(item: Opportunity, user: Readonly<UserRecord>, service: SubscriptionRef['service'], names: Names): 'closed' | 'market' | 'below-min-profit' | 'not-an-arb' | undefined {
  const books = user.books;
  if (item.legs.some((leg) => leg.bookmakerId !== undefined && books[String(leg.bookmakerId)]?.status === 'closed')) return 'closed';
  const settings = user.filters[service]?.settings;
  // The service leaves out whole sections itself (skip_sections); odd/even, periods, corners and cards only here.
  if (settings && leftOutBy(itemGroups(item, names), settings.marketsOff)) return 'market';
  if (item.kind !== 'arbs') return undefined;
  const figure = metrics(item, alertTexts(user.lang), { names, books });
  const value = figure.source === 'odds' ? figure.values[0]?.value : undefined;
  const minProfit = settings && minProfitFor(settings, item.event.sportId);
  if (value !== undefined && minProfit !== undefined && value < minProfit) return 'below-min-profit';
  return notAnArbForYou(item, names, user) ? 'not-an-arb' : undefined;
}

/** This clock hour's count of items left out by the market filter, `n` more (a new hour starts from zero). */
export function addLeftOut(was: { hour: number; count: number } | undefined, n: number, now: number): { hour: number; count: number } {
  const hour = Math.floor(now / 3_600_000);
  return { hour, count: (was?.hour === hour ? was.count : 0) + n };
}

/** The entry once its alert's message id is known: no key to look it up by. */
function withoutSentKey(entry: AlertEntry): AlertEntry {
  const { sentKey: _sentKey, ...rest } = entry;
  return rest;
}

/** The entry of an item alerted at last: no longer withheld. */
function withoutWithheld(entry: AlertEntry): AlertEntry {
  const { withheld: _withheld, ...rest } = entry;
  return rest;
}

/**
 * An item first seen this long after the service says it appeared is late news: the backlog a
 * service shows when its token comes back after a window without one, or odds that moved into the
 * filter. Such an alert goes after the chat's fresh ones (the outbox's `late`), so a backlog never
 * holds back an opportunity born a second ago. Reads come every 2 s, so a fresh item is seen within
 * a few seconds of its birth; a clock far off the service's only makes every alert fresh (as
 * before) or every one late (the same order among themselves).
 */
export const LATE_AFTER_MS = 30_000;

/** An inline keyboard as the formatter builds it and the outbox takes it. */
export type AlertButtons = { text: string; callbackData: string }[][];

export interface NotifierOptions {
  store: Pick<Store, 'alerts' | 'updateStatus' | 'getUser'> & { ledger?: Pick<Store['ledger'], 'marks'>; prints?: Pick<PrintStore, 'put'> };
  client: Pick<ServiceClient, 'cachedDictionaries' | 'serviceClockOffsetMs'>;
  /** The bot's stale-leg limits (STALE_LEG_SECONDS…); default 60 s live, 15 min prematch. */
  staleDefaults?: StaleDefaults;
  outbox: OutboxPort;
  logger: Logger;
  clock: Clock;
  /** Metrics hook (operator port): first sighting → delivered, per alert. */
  metrics?: Pick<MetricsPort, 'alertLatency'>;
}

/** Builds the notifier. */
export function createNotifier(opts: NotifierOptions): Notifier {
  const { store, client, outbox, clock } = opts;
  const log = opts.logger.child({ module: 'notifier' });
  const pending = new Set<Promise<unknown>>();
  const recentAlerts = new MinuteCounter();
  const counts = { alerts: 0, edits: 0, skipped: 0, held: 0, notices: 0, failures: 0, reAlerts: 0 };

  const track = (p: Promise<unknown>) => {
    const settled = p.then(
      () => undefined,
      (err: unknown) => {
        counts.failures += 1;
        log.warn({ err }, 'an alert send or edit failed');
      },
    );
    pending.add(settled);
    void settled.finally(() => pending.delete(settled));
  };

  const viewFor = (user: Readonly<UserRecord>, now: number): AlertView => ({
    lang: user.lang,
    timeZone: user.timeZone,
    bankroll: user.bankroll,
    roundingStep: user.roundingStep,
    now,
    ...(user.currency !== null && { currency: user.currency }),
    books: user.books,
    stakingMode: user.stakingMode,
    serviceOffsetMs: client.serviceClockOffsetMs?.() ?? 0,
    staleAfter: staleAfterFor(user, opts.staleDefaults),
  });

  const mismatchLogged = new Set<string>();
  /** Logs once per item when the service's profit figure disagrees with the odds (a misread market). */
  const checkMismatch = (item: Opportunity, names: Names) => {
    if (mismatchLogged.has(item.id)) return;
    const found = serviceMismatch(item, { names });
    if (!found) return;
    if (mismatchLogged.size >= MISMATCH_MEMORY) mismatchLogged.clear();
    mismatchLogged.add(item.id);
    log.warn(
      { itemId: item.id, service: item.service, serviceProfit: found.service, oddsProfit: Math.round(found.ours * 100) / 100, legs: item.legs.map((l) => ({ bookmakerId: l.bookmakerId, typeId: l.typeId, odds: l.odds })) },
      "the service's profit figure disagrees with its legs' odds (lay legs read as lay bets, before commission): the alert shows both",
    );
  };

  /** Stores `change` into the entry if it is still the one the event was about (not replaced by a newer sighting). */
  const updateEntry = (subKey: string, itemId: string, firstSeenAt: number, change: (e: AlertEntry) => AlertEntry) => {
    try {
      const current = store.alerts.get(subKey, itemId);
      if (!current || current.firstSeenAt !== firstSeenAt) return;
      store.alerts.set(subKey, itemId, change(current));
    } catch (err) {
      // The store closes at shutdown while late sends still settle; the next run re-reads anyway.
      log.debug({ err, subKey }, 'alert entry not updated');
    }
  };

  type EditEvent = 'moved' | 'returned' | 'gone';
  /** The view with the ledger's mark of this item, so an edit keeps its "✅ Placed" line. */
  const withMark = (sub: SubscriptionRef, itemId: string, view: AlertView): AlertView => {
    const placed = store.ledger?.marks(sub.userId).get(markKey(sub.service, itemId));
    return placed ? { ...view, placed } : view;
  };

  /**
   * The view with the id of what the message prints, kept in the store first (src/ledger/prints.ts):
   * its ✅ / ✏️ record that version whatever happens to the item. A gone alert names the print of
   * its last version (the same content, so the same id). Without a print store, or when the print
   * cannot be kept, the message has the older buttons.
   */
  const withPrint = (sub: SubscriptionRef, item: Opportunity, names: Names, view: AlertView): AlertView => {
    if (!store.prints) return view;
    try {
      const print = printOf(sub.userId, item, names, view, view.now);
      if (!print) return view;
      store.prints.put(sub.userId, print);
      return { ...view, printId: print.id };
    } catch (err) {
      log.warn({ err, subKey: sub.subKey }, 'the print of an alert could not be kept; its ✅ Placed reads the latest data');
      return view;
    }
  };

  const edit = (sub: SubscriptionRef, itemId: string, entry: AlertEntry, item: Opportunity, names: Names, view: AlertView, state: AlertState, event: EditEvent) => {
    // A first read's summary listed the item: that message is not its alert to redraw.
    if (entry.messageId === null || entry.summary === true) return;
    const printed = withPrint(sub, state.state === 'gone' ? state.last : item, names, view);
    const rendered = formatAlert(item, names, withMark(sub, itemId, printed), state);
    counts.edits += 1;
    const messageId = entry.messageId;
    track(
      outbox.edit(entry.chatId, messageId, rendered.text, { buttons: rendered.buttons, gone: state.state === 'gone', idempotencyKey: editKey(sub.subKey, itemId, event, entry) }).then((ok) => {
        // A message that cannot be edited (deleted by the user, or Telegram gave up) is not tried again; one whose outcome is not known yet is.
        if (ok === false) updateEntry(sub.subKey, itemId, entry.firstSeenAt, (e) => (e.messageId === messageId ? { ...e, messageId: null } : e));
      }),
    );
  };

  /**
   * The message id of an alert whose send's answer came after its call stopped waiting (a cluster's
   * front behind a flood; another worker may hold the alert by now), from the send's claim; the next read edits it.
   */
  const findMessage = (sub: SubscriptionRef, itemId: string, entry: AlertEntry) => {
    const key = entry.sentKey;
    if (key === undefined || entry.messageId !== null || !outbox.messageIdOf) return;
    track(
      outbox.messageIdOf(key).then((found) => {
        // Not sent yet: asked again at the next move.
        if (found === undefined) return;
        updateEntry(sub.subKey, itemId, entry.firstSeenAt, (e) => (e.sentKey !== key ? e : { ...withoutSentKey(e), ...(found !== 'none' && { messageId: found }) }));
      }),
    );
  };

  /** A held alert's item as the quiet-hours summary lists it: its id, whose read says if it is still there, its 🔎 button. */
  const heldItem = (sub: SubscriptionRef, item: Opportunity): HeldItem => {
    const openData = encodeAlertAction({ type: 'open', service: sub.service, itemId: item.id });
    return { id: item.id, userId: sub.userId, service: sub.service, ...(openData !== undefined ? { openData } : {}) };
  };

  /** Queues the alert; true when it went to the outbox to be sent now, false when quiet hours hold it. */
  type Manner = ReturnType<typeof newAlertManner>;
  const alert = (sub: SubscriptionRef, user: Readonly<UserRecord>, itemId: string, entry: AlertEntry, item: Opportunity, names: Names, view: AlertView, again: boolean, manner: Manner): boolean => {
    // Found by the read just made: the outbox fills in the delay from it to the call.
    const printed = withPrint(sub, item, names, view);
    const rendered = formatAlert(item, names, { ...printed, foundAt: view.now }, { state: 'new' });
    // Folded into a digest, its line keeps ✅ / ✏️ for what the alert printed.
    const digestButtons = printed.printId === undefined ? undefined : placedButtons(item, alertTexts(view.lang), printed.printId);
    // Rises are counted from what this alert shows.
    if (manner.base !== entry.loudBase) updateEntry(sub.subKey, itemId, entry.firstSeenAt, (e) => (manner.base === undefined ? e : { ...e, loudBase: manner.base }));
    const holdUntil = quietUntil(user.quietHours, user.timeZone, view.now) ?? undefined;
    if (holdUntil !== undefined) counts.held += 1;
    // A returning item is news again now, however old the item.
    const late = !again && item.createdAt !== undefined && view.now - item.createdAt > LATE_AFTER_MS;
    counts.alerts += 1;
    recentAlerts.add(view.now);
    const key = alertKey({ subKey: sub.subKey, itemId, item, entry, again, filterSavedAt: user.filters[sub.service]?.savedAt });
    // A call that stopped waiting (a cluster's front behind a flood) leaves the key in the entry, to find the message by later.
    const onNoAnswer = outbox.messageIdOf && (() => updateEntry(sub.subKey, itemId, entry.firstSeenAt, (e) => (e.messageId === null ? { ...e, sentKey: key } : e)));
    track(
      outbox
        .send(entry.chatId, rendered.text, {
          buttons: rendered.buttons,
          kind: 'alert',
          lang: user.lang,
          digestLine: formatShortLine(item, names, view),
          ...(digestButtons && digestButtons.length > 0 ? { digestButtons } : {}),
          idempotencyKey: key,
          ...(holdUntil !== undefined ? { holdUntil, heldItem: heldItem(sub, item) } : {}),
          ...(late ? { late } : {}),
          ...(manner.silent ? { silent: true } : {}),
          ...(onNoAnswer && { onNoAnswer }),
          foundAt: view.now,
        })
        .then((messageId) => {
          // Metrics hook: only alerts that reached Telegram as themselves (not folded or held).
          if (messageId !== undefined) opts.metrics?.alertLatency(clock.now() - entry.firstSeenAt);
          if (messageId !== undefined) updateEntry(sub.subKey, itemId, entry.firstSeenAt, (e) => ({ ...(e.sentKey === key ? withoutSentKey(e) : e), messageId }));
        }),
    );
    return holdUntil === undefined;
  };

  /** A loud reply to an alert whose profit rose enough (loudness.ts); never in quiet hours, which keep every alert silent until they end. */
  const reAlert = (sub: SubscriptionRef, user: Readonly<UserRecord>, itemId: string, entry: AlertEntry, item: Opportunity, names: Names, view: AlertView) => {
    const change = reAlertFor(item, entry, user, sub.service, view, names);
    if (!change || entry.messageId === null || quietUntil(user.quietHours, user.timeZone, view.now) !== null) return;
    updateEntry(sub.subKey, itemId, entry.firstSeenAt, (e) => ({ ...e, loudBase: change.now }));
    counts.reAlerts += 1;
    const reply = { kind: 'info', lang: user.lang, replyTo: entry.messageId, idempotencyKey: reAlertKey(sub.subKey, itemId, entry, change.was), expiresAt: view.now + RE_ALERT_FRESH_MS } as const;
    track(outbox.send(entry.chatId, reAlertText(item, view, change), reply));
  };

  /**
   * One message for the first read's many new items. Each entry then records the summary's message
   * (marked `summary`: never edited for the item), which the sent journal keeps through a kill -9.
   */
  const summarise = (sub: SubscriptionRef, user: Readonly<UserRecord>, listed: { itemId: string; entry: AlertEntry; item: Opportunity }[], names: Names, view: AlertView) => {
    const summary = firstReadSummary(listed.map((n) => n.item), sub.service, names, view);
    counts.alerts += 1;
    recentAlerts.add(view.now);
    const chatId = user.alertChatId ?? user.chatId;
    const key = `${sub.subKey}:summary:chat:${chatId}:filter:${user.filters[sub.service]?.savedAt ?? '-'}:${view.now}`;
    track(
      outbox.send(chatId, summary.text, { buttons: summary.buttons, kind: 'info', lang: user.lang, idempotencyKey: key }).then((messageId) => {
        if (messageId === undefined) return;
        for (const n of listed) updateEntry(sub.subKey, n.itemId, n.entry.firstSeenAt, (e) => ({ ...e, messageId, summary: true }));
      }),
    );
  };

  return {
    notify(sub, user, events) {
      if (events.length === 0) return;
      const now = clock.now();
      const view = viewFor(user, now);
      const names = namesFor(client.cachedDictionaries(user.lang), user.lang);
      let alerted = false;
      let leftOut = 0;
      // The first read's new items wait here: many of them become one summary (first-read.ts); quiet hours hold each as before.
      const firstNew: { itemId: string; entry: AlertEntry; item: Opportunity; manner: Manner }[] = [];
      const summarising = sub.firstRead === true && quietUntil(user.quietHours, user.timeZone, now) === null;
      for (const event of events) {
        try {
          switch (event.type) {
            case 'new': {
              const snoozedUntil = user.snoozedUntil[sub.service];
              const manner = newAlertManner(event.item, user, sub.service, view, names);
              // A live alert whose every leg is stale and a user who said "drop stale": withheld, so a move to fresh odds alerts it.
              const held = manner.drop || isMutedItem(user, event.item, now) || (snoozedUntil !== undefined && snoozedUntil > now);
              const reason = held ? undefined : dropReason(event.item, user, sub.service, names);
              const passes = !held && reason === undefined;
              // Counted once per item, when first left out, for /status.
              if (reason === 'market' && event.entry.withheld !== true) leftOut += 1;
              // A withheld item is checked again when it moves (diff.ts): odds that move into profit after commission, a mute that ended.
              // The mark is written only when it changes: withheld and now passing, or failing and not yet withheld.
              if (passes === (event.entry.withheld === true)) {
                updateEntry(sub.subKey, event.itemId, event.entry.firstSeenAt, (e) => (passes ? withoutWithheld(e) : { ...e, withheld: true }));
              }
              if (!passes) {
                counts.skipped += 1;
                break;
              }
              checkMismatch(event.item, names);
              // "Last alert" in /status counts what was sent, not what quiet hours hold (maybe never to be seen).
              if (summarising && !event.returned) firstNew.push({ itemId: event.itemId, entry: event.entry, item: event.item, manner });
              else if (alert(sub, user, event.itemId, event.entry, event.item, names, view, event.returned, manner)) alerted = true;
              break;
            }
            case 'moved':
              edit(sub, event.itemId, event.entry, event.item, names, view, { state: 'moved', prev: event.prev }, 'moved');
              reAlert(sub, user, event.itemId, event.entry, event.item, names, view);
              break;
            case 'returned':
              edit(sub, event.itemId, event.entry, event.item, names, view, { state: 'new', backAfterMs: event.awayMs }, 'returned');
              break;
            case 'gone':
              edit(sub, event.itemId, event.entry, event.last, names, view, { state: 'gone', livedMs: event.livedMs, last: event.last }, 'gone');
              break;
            case 'lookup':
              findMessage(sub, event.itemId, event.entry);
              break;
          }
        } catch (err) {
          counts.failures += 1;
          log.error({ err, subKey: sub.subKey, itemId: event.itemId, event: event.type }, 'could not turn a diff event into an alert');
        }
      }
      if (firstNew.length >= SUMMARY_FROM) {
        summarise(sub, user, firstNew, names, view);
        alerted = true;
      } else for (const n of firstNew) if (alert(sub, user, n.itemId, n.entry, n.item, names, view, false, n.manner)) alerted = true;
      if (alerted || leftOut > 0) {
        try {
          store.updateStatus(user.id, sub.service, {
            ...(alerted && { lastAlertAt: now }),
            ...(leftOut > 0 && { leftOut: addLeftOut(user.status[sub.service]?.leftOut, leftOut, now) }),
          });
        } catch (err) {
          log.debug({ err, userId: user.id }, 'lastAlertAt not stored');
        }
      }
    },

    notice(user, reason, service) {
      counts.notices += 1;
      track(outbox.send(user.chatId, noticeText(reason, service, user.lang), { kind: 'info', lang: user.lang, forUser: user.id }));
    },

    draft(user, service, outcome) {
      counts.notices += 1;
      track(outbox.send(user.chatId, draftText(outcome, service, user.lang), { kind: 'info', lang: user.lang }));
    },

    stats() {
      return { ...counts, alertsLastMinute: recentAlerts.total(clock.now()) };
    },

    async idle() {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}
