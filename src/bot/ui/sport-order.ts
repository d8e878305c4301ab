/**
 * The order of sports in the filter builder: the service's own order of ids (football is 1),
 * never A–Z, which put e-Sports before Football, and never by what the user's services carry at
 * the moment, which gave every service and every edit its own order (#22 of the newcomer trial:
 * Tennis was button 5, then 2, then 6, and muscle memory tapped the wrong sport). One order, the
 * same for every service, every language and every visit.
 */

/** `entries` ([id, name]) in the service's id order. */
export function orderSports(entries: readonly [number, string][]): [number, string][] {
  return [...entries].sort((a, b) => a[0] - b[0]);
}
