/**
 * The callback data of the mute controls (the offer sent after "🔕 Mute event", and /muted):
 *
 *   m:e:<dur>:<svc>:<event id>   mute that event
 *   m:l:<dur>:<svc>:<item id>    mute the league of that item (looked up when pressed)
 *   m:b:<dur>:<bookmaker id>     mute that bookmaker
 *   m:u:<8 hex>                  lift the mute whose key hashes to this (see `muteKeyTag`)
 *   m:z:<svc>                    lift the snooze of that service
 *
 * where <dur> is h (1 h), d (24 h) or f (for good). A league name can be longer than 64 bytes,
 * so a lift names its mute by a short hash of the key, found among the user's own mutes.
 */
import { createHash } from 'node:crypto';
import { withinCallbackLimit } from '../../lib/callback-data.js';
import { serviceCode, serviceFromCode, type Service } from '../../service/services.js';
import { CALLBACK_PREFIXES } from './registry.js';

export type MuteDuration = 'hour' | 'day' | 'forever';

export type MuteAction =
  | { type: 'event'; duration: MuteDuration; service: Service; eventId: string }
  | { type: 'league'; duration: MuteDuration; service: Service; itemId: string }
  | { type: 'bookmaker'; duration: MuteDuration; bookmakerId: number }
  | { type: 'lift'; tag: string }
  | { type: 'wake'; service: Service };

const PREFIX = CALLBACK_PREFIXES.mutes;
const DURATION_TAGS: Record<MuteDuration, string> = { hour: 'h', day: 'd', forever: 'f' };
const BY_DURATION_TAG = new Map(Object.entries(DURATION_TAGS).map(([d, tag]) => [tag, d as MuteDuration]));
// Ids as the service writes them (printable ASCII without spaces), as the alert buttons take them.
const ID = /^[!-~]{1,48}$/;

/** The 8-hex tag a lift button carries for the mute `key`. */
export function muteKeyTag(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** The data, or undefined when it would not fit in 64 bytes (a very long id). */
export function encodeMuteAction(action: MuteAction): string | undefined {
  let data: string;
  switch (action.type) {
    case 'event':
      data = `${PREFIX}e:${DURATION_TAGS[action.duration]}:${serviceCode(action.service)}:${action.eventId}`;
      break;
    case 'league':
      data = `${PREFIX}l:${DURATION_TAGS[action.duration]}:${serviceCode(action.service)}:${action.itemId}`;
      break;
    case 'bookmaker':
      data = `${PREFIX}b:${DURATION_TAGS[action.duration]}:${action.bookmakerId}`;
      break;
    case 'lift':
      data = `${PREFIX}u:${action.tag}`;
      break;
    case 'wake':
      data = `${PREFIX}z:${serviceCode(action.service)}`;
      break;
  }
  return withinCallbackLimit(data);
}

/** The action, or undefined for anything that is not exactly one of the forms above. */
export function decodeMuteAction(raw: unknown): MuteAction | undefined {
  const data = withinCallbackLimit(raw);
  if (data === undefined || !data.startsWith(PREFIX)) return undefined;
  const rest = data.slice(PREFIX.length);
  let m = /^u:([0-9a-f]{8})$/.exec(rest);
  if (m) return { type: 'lift', tag: m[1]! };
  m = /^z:([0-9])$/.exec(rest);
  if (m) {
    const service = serviceFromCode(m[1]);
    return service ? { type: 'wake', service } : undefined;
  }
  m = /^b:([hdf]):(\d{1,9})$/.exec(rest);
  if (m) {
    const duration = BY_DURATION_TAG.get(m[1]!);
    return duration ? { type: 'bookmaker', duration, bookmakerId: Number(m[2]) } : undefined;
  }
  m = /^([el]):([hdf]):([0-9]):(.+)$/s.exec(rest);
  if (!m) return undefined;
  const duration = BY_DURATION_TAG.get(m[2]!);
  const service = serviceFromCode(m[3]);
  const id = m[4]!;
  if (!duration || !service || !ID.test(id)) return undefined;
  return m[1] === 'e' ? { type: 'event', duration, service, eventId: id } : { type: 'league', duration, service, itemId: id };
}
