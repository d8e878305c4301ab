/**
 * The callback data of /forget's confirmation: `fg:y:<issued>` (yes, with the time the question
 * was asked, in whole seconds, base 36, so that an old or forged confirmation can be refused as
 * stale) and `fg:n` (no). The feature decides what is stale; this only reads the forms.
 */
import { withinCallbackLimit } from '../../lib/callback-data.js';
import { CALLBACK_PREFIXES } from './registry.js';

/** A pressed /forget button: yes (asked at `issuedAt`, ms, whole seconds) or no. */
export type ForgetAnswer = { type: 'yes'; issuedAt: number } | { type: 'no' };

const PREFIX = CALLBACK_PREFIXES.forget;
const FORM = new RegExp(`^${PREFIX}(?:y:([0-9a-z]{1,10})|n)$`);

export function encodeForgetAnswer(answer: ForgetAnswer): string {
  if (answer.type === 'no') return `${PREFIX}n`;
  const seconds = Math.floor(answer.issuedAt / 1000);
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new RangeError('forget: issuedAt must be a time after 1970');
  return `${PREFIX}y:${seconds.toString(36)}`;
}

/** The answer, or `undefined` for anything that is not exactly `fg:n` or `fg:y:<1–10 base-36 digits>`. */
export function decodeForgetAnswer(raw: unknown): ForgetAnswer | undefined {
  const data = withinCallbackLimit(raw);
  const m = data === undefined ? null : FORM.exec(data);
  if (!m) return undefined;
  const issued = m[1];
  return issued === undefined ? { type: 'no' } : { type: 'yes', issuedAt: parseInt(issued, 36) * 1000 };
}
