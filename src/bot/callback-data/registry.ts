/**
 * Every kind of callback data the bot's buttons carry, by prefix, in one table. A pressed button
 * is routed on its prefix, so two kinds must never share one, nor may one prefix start another
 * (`f:` and `fg:` are fine only because each ends with ':'): `prefixCollisions` says so, a test
 * holds the table to it, and the table refuses to load if it ever breaks.
 *
 * The alert prefix is defined beside its codec in `src/alerts/callbacks.ts` (see `index.ts` for
 * why) and only registered here; the other kinds take theirs from this table.
 */
import { ALERT_CALLBACK_PREFIX } from '../../alerts/callbacks.js';

export const CALLBACK_PREFIXES = {
  /** The buttons under an alert (`alert.ts`). */
  alert: ALERT_CALLBACK_PREFIX,
  /** /filters: pause, resume, edit, delete (`filters.ts`). */
  filters: 'f:',
  /** /forget's confirmation (`forget.ts`). */
  forget: 'fg:',
  /** The buttons of a guided flow's current prompt (`flow.ts`). */
  flow: 'cv:',
  /** /books: a bookmaker's status and reset (`books.ts`). */
  books: 'bk:',
  /** Mute controls: the offer after "Mute event", and /muted (`mutes.ts`). */
  mutes: 'm:',
  /** The ledger: legs placed differently or refused, hedges, settling, /open's pages (`ledger.ts`). */
  ledger: 'l:',
  /** The ledger's corrections: ✏️ Edit, a leg's values or result, 🗑 Delete, ↩️ Undo and Reopen, /positions' pages (`ledger-edit.ts`). */
  ledgerEdit: 'le:',
  /** The buttons under "✏️ Leg limited"'s question: a leg at its max, a staking mode (`leg-limit.ts`). */
  legLimit: 'll:',
} as const;

export type CallbackKind = keyof typeof CALLBACK_PREFIXES;

const KINDS = Object.keys(CALLBACK_PREFIXES) as CallbackKind[];

/** Every pair of prefixes where one is empty, lacks its closing ':', or starts the other; [] when none. */
export function prefixCollisions(prefixes: Readonly<Record<string, string>>): [string, string][] {
  const entries = Object.entries(prefixes);
  const found: [string, string][] = [];
  for (const [name, prefix] of entries) {
    if (!/^[a-z]+:$/.test(prefix)) found.push([name, name]);
  }
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const [a, pa] = entries[i]!;
      const [b, pb] = entries[j]!;
      if (pa.startsWith(pb) || pb.startsWith(pa)) found.push([a, b]);
    }
  }
  return found;
}

const collisions = prefixCollisions(CALLBACK_PREFIXES);
if (collisions.length > 0) throw new Error(`callback data prefixes collide: ${JSON.stringify(collisions)}`);

/** The kind whose prefix `data` starts with (at most one, by the check above). */
export function callbackKind(data: string | undefined): CallbackKind | undefined {
  if (data === undefined) return undefined;
  return KINDS.find((kind) => data.startsWith(CALLBACK_PREFIXES[kind]));
}

/** Matches any data of `kind`, for `composer.callbackQuery(…)`; its codec's decoder does the real check. */
export function kindPattern(kind: CallbackKind): RegExp {
  return new RegExp(`^${CALLBACK_PREFIXES[kind]}`);
}
