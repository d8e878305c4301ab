/**
 * What a user muted beyond single events: a league or a bookmaker for 1 h, 24 h or for good, and
 * the names /muted shows for every mute (events too). Keys: `e:<event id>`, `l:<sport id>:<league,
 * lower case>`, `b:<bookmaker id>`. Event mutes are also kept in `mutedEvents`, the older record
 * the alert path has always read. Bounded like muted events: forged buttons cannot grow a record.
 */
import type { Opportunity } from '../service/opportunity.js';
import type { UserRecord } from './schema.js';

/** "For good": the latest time JavaScript dates know (year 275760), stored as a plain number. */
export const MUTE_FOREVER = 8.64e15;

/** Most mutes kept per user; a new one past it pushes out the one that would end soonest. */
export const MAX_MUTES = 100;

/** Longest name kept for a mute (a league name from the service can be long). */
const LABEL_MAX = 120;

export interface MuteEntry {
  until: number;
  label: string;
}

export type MuteScope = 'event' | 'league' | 'bookmaker';

export const eventMuteKey = (eventId: string): string => `e:${eventId}`;
export const bookmakerMuteKey = (bookmakerId: number): string => `b:${bookmakerId}`;
export function leagueMuteKey(item: Pick<Opportunity, 'event'>): string {
  return `l:${item.event.sportId ?? ''}:${item.event.league.trim().toLowerCase()}`;
}

/** The scope of a mute key. */
export function scopeOf(key: string): MuteScope {
  return key.startsWith('l:') ? 'league' : key.startsWith('b:') ? 'bookmaker' : 'event';
}

/** The mutes after adding `key` until `until`: expired ones dropped, the soonest-ending ones out past the cap. */
export function withMute(mutes: Readonly<Record<string, MuteEntry>>, key: string, entry: MuteEntry, now: number): Record<string, MuteEntry> {
  const live = Object.entries(mutes).filter(([k, e]) => e.until > now && k !== key);
  if (live.length >= MAX_MUTES) {
    live.sort((a, b) => b[1].until - a[1].until);
    live.length = MAX_MUTES - 1;
  }
  // Object.fromEntries defines own properties, so a key like "e:__proto__" stays a plain key.
  return Object.fromEntries([...live, [key, { until: entry.until, label: entry.label.slice(0, LABEL_MAX) }]]);
}

/** Whether a new alert of `item` is held back by a mute of its event, its league or one of its bookmakers. */
export function isMutedItem(user: Pick<UserRecord, 'mutedEvents' | 'mutes'>, item: Pick<Opportunity, 'event' | 'legs'>, now: number): boolean {
  const active = (key: string) => {
    const entry = Object.hasOwn(user.mutes, key) ? user.mutes[key] : undefined;
    return entry !== undefined && entry.until > now;
  };
  const eventUntil = Object.hasOwn(user.mutedEvents, item.event.id) ? user.mutedEvents[item.event.id] : undefined;
  if (eventUntil !== undefined && eventUntil > now) return true;
  if (active(eventMuteKey(item.event.id)) || active(leagueMuteKey(item))) return true;
  return item.legs.some((leg) => leg.bookmakerId !== undefined && active(bookmakerMuteKey(leg.bookmakerId)));
}
