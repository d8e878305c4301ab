/**
 * The buttons under an alert: all items of the event, stakes for another amount (only where the
 * odds are shown), mute the event, snooze the whole service, and the ledger's "✅ Placed" / "✏️ Placed
 * differently" (only where the odds are shown); a gone alert keeps the event and mute
 * buttons. A button whose data would not fit Telegram's 64 bytes is left out.
 */
import type { Opportunity } from '../service/opportunity.js';
import type { AlertTexts } from './alert-texts.js';
import { encodeAlertAction, type AlertAction } from './callbacks.js';
import { legOdds } from './headline-figures.js';
import { isLive } from '../service/services.js';

/** Inline keyboard rows: each button's text and callback data. */
export type AlertButtonRows = { text: string; callbackData: string }[][];

export function alertButtons(item: Opportunity, t: AlertTexts, state: 'new' | 'moved' | 'gone'): AlertButtonRows {
  const b = (text: string, action: AlertAction) => {
    const callbackData = encodeAlertAction(action);
    return callbackData === undefined ? [] : [{ text, callbackData }];
  };
  const { service } = item;
  const eventButton = b(t.buttons.event, { type: 'event', service, eventId: item.event.id });
  const muteButton = b(t.buttons.mute, { type: 'mute', service, eventId: item.event.id });
  if (state === 'gone') return [[...eventButton, ...muteButton]].filter((row) => row.length > 0);
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
    stakesUseful
      ? [...b(t.buttons.placed, { type: 'placed', service, itemId: item.id }), ...b(t.buttons.placedDifferently, { type: 'placedDifferently', service, itemId: item.id })]
      : [],
    muteButton,
    b(t.snoozeAll(item.kind, isLive(service)), { type: 'snooze', service }),
  ];
  return rows.filter((row) => row.length > 0);
}
