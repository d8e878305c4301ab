/**
 * The bound on one user's ledger (LEDGER_MAX_POSITIONS): every new position the bot records — from
 * an alert, a card, ✏️, /add — goes through `store.ledger.put`, so the bound is kept there, once,
 * by wrapping the store the bot is given; a change to a position already held (a settle, an edit)
 * is never refused. A refused put throws LedgerFullError, which the bot's error boundary answers
 * with how to make room (/export, /archive), instead of "something went wrong". Without a bound
 * one account could grow the ledger with the bot's own buttons until every write and /export of
 * the process slowed (security-audit-3 M2).
 */
import type { LedgerStore, Store } from '../store/port.js';

export class LedgerFullError extends Error {
  override name = 'LedgerFullError';

  constructor(readonly max: number) {
    super(`the ledger holds its most positions (${max}); nothing was recorded`);
  }
}

export const isLedgerFull = (err: unknown): err is LedgerFullError => err instanceof LedgerFullError;

/** `ledger` whose put refuses a new position past `max` held ones. */
export function boundedLedger(ledger: LedgerStore, max: number): LedgerStore {
  const put: LedgerStore['put'] = async (userId, position) => {
    // A settle or an edit changes a position held: only a new one is counted against the bound (in Redis, a count of the whole hash).
    if ((await ledger.position(userId, position.id)) === undefined) {
      const { positions, has } = await ledger.size(userId, position.id);
      if (!has && positions >= max) throw new LedgerFullError(max);
    }
    return ledger.put(userId, position);
  };
  return new Proxy(ledger, {
    get(target, prop) {
      if (prop === 'put') return put;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `store` whose ledger is bounded (everything else as it is). */
export function withBoundedLedger(store: Store, max: number): Store {
  const ledger = boundedLedger(store.ledger, max);
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'ledger') return ledger;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
