/**
 * A user's muted events, bounded. Mute buttons carry the event id in their callback data, which a
 * client can forge at will: each press would otherwise add one more entry to the user's record,
 * and every record is rewritten with the whole file. At most MAX_MUTED_EVENTS are kept; a mute
 * beyond that pushes out the one that would end soonest.
 */

/** Most muted events kept per user (a day's real mutes are far fewer). */
export const MAX_MUTED_EVENTS = 100;

/** The muted events after muting `eventId` until `until`: expired ones dropped, the soonest-ending ones out past the cap. */
export function withMutedEvent(muted: Readonly<Record<string, number>>, eventId: string, until: number, now: number): Record<string, number> {
  const live = Object.entries(muted).filter(([id, end]) => end > now && id !== eventId);
  if (live.length >= MAX_MUTED_EVENTS) {
    live.sort((a, b) => b[1] - a[1]);
    live.length = MAX_MUTED_EVENTS - 1;
  }
  // Object.fromEntries defines own properties, so an id like "__proto__" stays a plain key.
  return Object.fromEntries([...live, [eventId, until]]);
}
