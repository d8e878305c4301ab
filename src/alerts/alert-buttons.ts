/**
 * The buttons under an alert: all items of the event, stakes for another amount (only where the
 * odds are shown), mute the event, snooze the whole service, and the ledger's "✅ Placed" / "✏️ Placed
 * differently" (only where the odds are shown); a gone alert keeps the event and mute
 * buttons. A button whose data would not fit Telegram's 64 bytes is left out.
 *
 * Given the id of the message's print (`src/ledger/prints.ts`), ✅ and ✏️ name that print and stay
 * on every state of the message — gone, moved, "not an arb for you" — since what it printed can
 * always be recorded; without one (older callers) they need stakes shown now, as before.
 */
import type { Opportunity } from '../service/opportunity.js';
import type { AlertTexts } from './alert-texts.js';
import { encodeAlertAction, type AlertAction } from './callbacks.js';
import { legOdds } from './headline-figures.js';
import { isLive } from '../service/services.js';

/** Inline keyboard rows: each button's text and callback data. */
export type AlertButtonRows = { text: string; callbackData: string }[][];

/** ✅ Placed and ✏️ Placed differently for the message whose print is `printId` (an inline card has only these). */
export function placedButtons(item: Opportunity, t: AlertTexts, printId: string): AlertButtonRows[number] {
  return (
    [
      [t.buttons.placed, encodeAlertAction({ type: 'placedPrint', service: item.service, printId, differently: false })],
      [t.buttons.placedDifferently, encodeAlertAction({ type: 'placedPrint', service: item.service, printId, differently: true })],
    ] as const
  ).flatMap(([text, callbackData]) => (callbackData === undefined ? [] : [{ text, callbackData }]));
}

export function alertButtons(item: Opportunity, t: AlertTexts, state: 'new' | 'moved' | 'gone', printId?: string): AlertButtonRows {
  const b = (text: string, action: AlertAction) => {
    const callbackData = encodeAlertAction(action);
    return callbackData === undefined ? [] : [{ text, callbackData }];
  };
  const { service } = item;
  const eventButton = b(t.buttons.event, { type: 'event', service, eventId: item.event.id });
  const muteButton = b(t.buttons.mute, { type: 'mute', service, eventId: item.event.id });
  const printed = printId === undefined ? [] : placedButtons(item, t, printId);
  if (state === 'gone') return [printed, [...eventButton, ...muteButton]].filter((row) => row.length > 0);
  const stakesUseful = legOdds(item) !== undefined && !item.masked;
  // The snooze pauses the whole service, so it says so and has a row of its own (not beside the
  // event's mute, where it read as "this event for an hour").
  const rows = [
    eventButton,
    [
      ...(stakesUseful ? b(t.buttons.stakes, { type: 'stakes', service, itemId: item.id }) : []),
      // An arb's leg the bookmaker limited: the other legs re-solved around what it accepted.
      ...(stakesUseful && item.kind === 'arbs' ? b(t.buttons.limited, { type: 'limited', service, itemId: item.id }) : []),
    ],
    printId !== undefined
      ? printed
      : stakesUseful
        ? [...b(t.buttons.placed, { type: 'placed', service, itemId: item.id }), ...b(t.buttons.placedDifferently, { type: 'placedDifferently', service, itemId: item.id })]
        : [],
    muteButton,
    b(t.snoozeAll(item.kind, isLive(service)), { type: 'snooze', service }),
  ];
  return rows.filter((row) => row.length > 0);
}
