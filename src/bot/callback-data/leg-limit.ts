/**
 * The callback data of the buttons under "✏️ Leg limited"'s question: `ll:m:<leg>` answers with
 * that leg at its bookmaker's stored max, `ll:p:<leg>` with all the profit on that leg, `ll:e`
 * with equal profit (legs 0-based, one digit). The data names no alert: a press counts only on the
 * question message its presser has open (the feature checks the message id against the pending
 * question), so an old, forwarded or forged button answers nothing.
 */
import { withinCallbackLimit } from '../../lib/callback-data.js';
import { CALLBACK_PREFIXES } from './registry.js';

export type LegLimitAction = { type: 'max'; leg: number } | { type: 'profit'; leg: number } | { type: 'equal' };

const PREFIX = CALLBACK_PREFIXES.legLimit;
const FORM = new RegExp(`^${PREFIX}(?:([mp]):(\\d)|e)$`);
/** Legs a button can name (an arb has 2 or 3; the digit allows up to 10). */
export const MAX_BUTTON_LEGS = 10;

export function encodeLegLimitAction(action: LegLimitAction): string {
  if (action.type === 'equal') return `${PREFIX}e`;
  if (!Number.isInteger(action.leg) || action.leg < 0 || action.leg >= MAX_BUTTON_LEGS) throw new RangeError('leg limited: a leg is 0 to 9');
  return `${PREFIX}${action.type === 'max' ? 'm' : 'p'}:${action.leg}`;
}

/** The action, or `undefined` for anything but `ll:e`, `ll:m:<digit>` or `ll:p:<digit>`. */
export function decodeLegLimitAction(raw: unknown): LegLimitAction | undefined {
  const data = withinCallbackLimit(raw);
  const m = data === undefined ? null : FORM.exec(data);
  if (!m) return undefined;
  if (m[1] === undefined) return { type: 'equal' };
  return { type: m[1] === 'm' ? 'max' : 'profit', leg: Number(m[2]) };
}
