/**
 * The callback data of an alert's buttons. Telegram allows 1–64 bytes, so the service is sent as
 * its index in SERVICES (one digit) and ids as they are:
 *
 *   a:ev:<svc>:<eventId>    all items of this event
 *   a:stk:<svc>:<itemId>    stakes for another amount
 *   a:mute:<svc>:<eventId>  mute this event
 *   a:snz:<svc>             snooze this filter (1 h)
 *   a:lim:<svc>:<itemId>    a leg was limited: re-solve the others around the accepted amount
 *   a:pl:<svc>:<itemId>     ✅ placed as shown (the ledger records it)
 *   a:pd:<svc>:<itemId>     ✏️ placed differently (the ledger asks per leg)
 *   a:op:<svc>:<itemId>     open the item's card (the quiet-hours summary lists held alerts with it)
 *   a:pp:<svc>:<printId>    ✅ placed as this message printed it (src/ledger/prints.ts)
 *   a:pq:<svc>:<printId>    ✏️ placed differently from what this message printed
 *   a:pa:<svc>:<printId>[:<chatId>:<messageId>]   record another position from that message (confirmed)
 *
 * The `pl` / `pd` forms are those of messages sent before prints were kept: still answered.
 *
 * Ids are printable ASCII without spaces (they may contain ':'; everything after the third ':' is
 * the id). Decoding is strict: anything else is `undefined`, never a half-parsed action.
 *
 * This codec lives here, not in `src/bot/callback-data/` with the others, because the formatter
 * (`format.ts`) encodes alert buttons and `alerts/` sits below `bot/`: the bot imports the alerts
 * side, never the reverse. `src/bot/callback-data/alert.ts` re-exports it and the registry there
 * holds its prefix with every other kind's, so no two kinds can collide.
 */
import { withinCallbackLimit } from '../lib/callback-data.js';
import { SERVICES, serviceCode, serviceFromCode, type Service } from '../service/services.js';

/** What a pressed alert button asks for. */
export type AlertAction =
  | { type: 'event'; service: Service; eventId: string }
  | { type: 'stakes'; service: Service; itemId: string }
  | { type: 'mute'; service: Service; eventId: string }
  | { type: 'snooze'; service: Service }
  | { type: 'limited'; service: Service; itemId: string }
  | { type: 'placed'; service: Service; itemId: string }
  | { type: 'placedDifferently'; service: Service; itemId: string }
  | { type: 'open'; service: Service; itemId: string }
  /** The first read's summary: open every item it lists (the pressed message names them, through the alert entries). */
  | { type: 'openAll'; service: Service }
  | { type: 'placedPrint'; service: Service; printId: string; differently: boolean }
  | { type: 'placedAgain'; service: Service; printId: string; at?: { chatId: number; messageId: number } };

/** Every alert button's data starts with this (registered in `src/bot/callback-data/registry.ts`). */
export const ALERT_CALLBACK_PREFIX = 'a:';

/** Matches the data of any alert button (a cheap pre-filter; `decodeAlertAction` does the real check). */
export const ALERT_CALLBACK_PATTERN = /^a:(?:ev|stk|mute|snz|lim|pl|pd|op|oa|pp|pq|pa):/;

const ID = /^[!-~]+$/;
const PRINT = /^[0-9a-z]{1,12}$/;

const TAGS = { event: 'ev', stakes: 'stk', mute: 'mute', snooze: 'snz', limited: 'lim', placed: 'pl', placedDifferently: 'pd', open: 'op' } as const;

/**
 * The callback data for `action`, or `undefined` when it cannot be encoded within 64 bytes (or an
 * id is empty or not printable ASCII): the caller then leaves that button out.
 */
export function encodeAlertAction(action: AlertAction): string | undefined {
  if (!SERVICES.includes(action.service)) return undefined;
  const svc = serviceCode(action.service);
  let data: string;
  switch (action.type) {
    case 'event':
    case 'mute':
      if (!ID.test(action.eventId)) return undefined;
      data = `${ALERT_CALLBACK_PREFIX}${TAGS[action.type]}:${svc}:${action.eventId}`;
      break;
    case 'stakes':
    case 'limited':
    case 'placed':
    case 'placedDifferently':
    case 'open':
      if (!ID.test(action.itemId)) return undefined;
      data = `${ALERT_CALLBACK_PREFIX}${TAGS[action.type]}:${svc}:${action.itemId}`;
      break;
    case 'snooze':
      data = `${ALERT_CALLBACK_PREFIX}${TAGS.snooze}:${svc}`;
      break;
    case 'openAll':
      data = `${ALERT_CALLBACK_PREFIX}oa:${svc}`;
      break;
    case 'placedPrint':
      if (!PRINT.test(action.printId)) return undefined;
      data = `${ALERT_CALLBACK_PREFIX}${action.differently ? 'pq' : 'pp'}:${svc}:${action.printId}`;
      break;
    case 'placedAgain':
      if (!PRINT.test(action.printId)) return undefined;
      data = `${ALERT_CALLBACK_PREFIX}pa:${svc}:${action.printId}${action.at ? `:${action.at.chatId}:${action.at.messageId}` : ''}`;
      break;
  }
  return withinCallbackLimit(data);
}

/** Parses a button's callback data; `undefined` for anything that is not exactly one of the forms above. */
export function decodeAlertAction(raw: unknown): AlertAction | undefined {
  const data = withinCallbackLimit(raw);
  if (data === undefined) return undefined;
  const m = /^a:(ev|stk|mute|snz|lim|pl|pd|op|oa|pp|pq|pa):([0-9])(?::(.*))?$/s.exec(data);
  if (!m) return undefined;
  const [, tag, digit, id] = m;
  const service = serviceFromCode(digit);
  if (!service) return undefined;
  if (tag === 'snz') return id === undefined ? { type: 'snooze', service } : undefined;
  if (tag === 'oa') return id === undefined ? { type: 'openAll', service } : undefined;
  if (tag === 'pp' || tag === 'pq') return id !== undefined && PRINT.test(id) ? { type: 'placedPrint', service, printId: id, differently: tag === 'pq' } : undefined;
  if (tag === 'pa') {
    const again = /^([0-9a-z]{1,12})(?::(-?\d{1,16}):(\d{1,10}))?$/.exec(id ?? '');
    if (!again) return undefined;
    const [, printId, chatId, messageId] = again;
    return chatId === undefined || messageId === undefined
      ? { type: 'placedAgain', service, printId: printId! }
      : { type: 'placedAgain', service, printId: printId!, at: { chatId: Number(chatId), messageId: Number(messageId) } };
  }
  if (id === undefined || !ID.test(id)) return undefined;
  switch (tag) {
    case 'ev':
      return { type: 'event', service, eventId: id };
    case 'stk':
      return { type: 'stakes', service, itemId: id };
    case 'lim':
      return { type: 'limited', service, itemId: id };
    case 'mute':
      return { type: 'mute', service, eventId: id };
    case 'pl':
      return { type: 'placed', service, itemId: id };
    case 'pd':
      return { type: 'placedDifferently', service, itemId: id };
    case 'op':
      return { type: 'open', service, itemId: id };
    default:
      return undefined;
  }
}
