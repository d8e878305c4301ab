/**
 * The callback data of the ledger's corrections (`le:`). Position ids are the presser's own (base
 * 36): a button only ever reaches the presser's ledger, so a forged id finds nothing or the
 * presser's own position, and an undo carries the number of the change it undoes.
 *
 *   le:e:<pos>               ✏️ Edit: the position's card with its choices (a new message)
 *   le:b:<pos>               the same card in place of the result editor (⬅️ Back)
 *   le:v:<pos>:<leg>         type a leg's odds, stake and bookmaker
 *   le:r:<pos>               the result editor (each leg's result)
 *   le:t:<pos>:<leg>:<code>  one leg's result (a LEG_CODES character)
 *   le:o:<pos>               ↩️ Reopen a settled position
 *   le:d:<pos>               🗑 Delete: asks first
 *   le:y:<pos>               🗑 Delete confirmed
 *   le:n:<pos>               🗑 Delete declined
 *   le:u:<pos>:<n>           ↩️ Undo change n
 *   le:s:<b|l>               /add's guided question: back or lay
 *   le:p:<page>:<period>     a page of /positions (period as /pnl writes it: all, 7d, 30d, month, 2026-11)
 */
import { withinCallbackLimit } from '../../lib/callback-data.js';
import type { LegOutcome } from '../../ledger/edits.js';
import type { LegResult } from '../../ledger/model.js';
import { CALLBACK_PREFIXES } from './registry.js';

export type LedgerEditAction =
  | { type: OneTag; positionId: string }
  | { type: 'legValues'; positionId: string; leg: number }
  | { type: 'legResult'; positionId: string; leg: number; code: string }
  | { type: 'undo'; positionId: string; n: number }
  | { type: 'page'; page: number; period: string }
  | { type: 'side'; lay: boolean };

/**
 * One leg's result in one character: won, half won, void, half lost ("q"uarter), lost; a dead heat
 * (`DEAD_HEAT_CODES`: 2–9 a share of 1/n, a–e the shares of more places than one); "-" none.
 */
export const LEG_CODES: Record<string, LegResult> = { w: 'won', h: 'half_won', v: 'void', q: 'half_lost', l: 'lost' };
const CODE_OF: Record<Exclude<LegResult, 'dead_heat'>, string> = { won: 'w', half_won: 'h', void: 'v', half_lost: 'q', lost: 'l' };

/**
 * A dead heat's share of the stake paid at full odds, as places paid ÷ runners tied (2 tied for 1
 * place: ½; 3 tied for 2 places: ⅔), by its code.
 */
export const DEAD_HEAT_CODES: Readonly<Record<string, readonly [places: number, tied: number]>> = {
  ...Object.fromEntries([2, 3, 4, 5, 6, 7, 8, 9].map((n) => [String(n), [1, n] as const])),
  a: [2, 3],
  b: [3, 4],
  c: [2, 5],
  d: [3, 5],
  e: [4, 5],
};

/** The places ÷ tied of a share (the nearest 1/n for a share no code has). */
export function deadHeatShare(share: number): readonly [places: number, tied: number] {
  const exact = Object.values(DEAD_HEAT_CODES).find(([p, n]) => Math.abs(p / n - share) < 1e-9);
  return exact ?? [1, Math.min(9, Math.max(2, Math.round(1 / share)))];
}

/** The character of an outcome. */
export function legCode(o: LegOutcome | null): string {
  if (o === null) return '-';
  if (o.result === 'dead_heat') {
    const [p, n] = deadHeatShare(o.deadHeat ?? 0.5);
    return Object.entries(DEAD_HEAT_CODES).find(([, s]) => s[0] === p && s[1] === n)![0];
  }
  return CODE_OF[o.result];
}

/** The outcome of a character; null for "-", undefined for anything else. */
export function legOutcome(code: string): LegOutcome | null | undefined {
  if (code === '-') return null;
  const share = DEAD_HEAT_CODES[code];
  if (share) return { result: 'dead_heat', deadHeat: share[0] / share[1] };
  const result = LEG_CODES[code];
  return result ? { result } : undefined;
}

const PREFIX = CALLBACK_PREFIXES.ledgerEdit;
const POS = '([0-9a-z]{1,10})';
const TAGS = { edit: 'e', back: 'b', results: 'r', reopen: 'o', delete: 'd', deleteYes: 'y', deleteNo: 'n' } as const;
type OneTag = keyof typeof TAGS;
const ONE = new RegExp(`^${PREFIX}([ebrodyn]):${POS}$`);
const LEG_VALUES = new RegExp(`^${PREFIX}v:${POS}:([0-9]{1,2})$`);
const LEG_RESULT = new RegExp(`^${PREFIX}t:${POS}:([0-9]{1,2}):([whvql2-9a-e-])$`);
const UNDO = new RegExp(`^${PREFIX}u:${POS}:([0-9]{1,9})$`);
const SIDE = new RegExp(`^${PREFIX}s:([bl])$`);
const PAGE = new RegExp(`^${PREFIX}p:([0-9]{1,4}):(all|7d|30d|month|[0-9]{4}-[0-9]{2})$`);
const BY_TAG = Object.fromEntries(Object.entries(TAGS).map(([type, tag]) => [tag, type as OneTag])) as Record<string, OneTag>;
const MAX_LEG = 15;

export function encodeLedgerEdit(action: LedgerEditAction): string {
  switch (action.type) {
    case 'legValues':
      return `${PREFIX}v:${action.positionId}:${action.leg}`;
    case 'legResult':
      return `${PREFIX}t:${action.positionId}:${action.leg}:${action.code}`;
    case 'undo':
      return `${PREFIX}u:${action.positionId}:${action.n}`;
    case 'page':
      return `${PREFIX}p:${action.page}:${action.period}`;
    case 'side':
      return `${PREFIX}s:${action.lay ? 'l' : 'b'}`;
    default:
      return `${PREFIX}${TAGS[action.type]}:${action.positionId}`;
  }
}

/** The action, or undefined for anything that is not exactly one of the forms above. */
export function decodeLedgerEdit(raw: unknown): LedgerEditAction | undefined {
  const data = withinCallbackLimit(raw);
  if (data === undefined) return undefined;
  let m = ONE.exec(data);
  if (m) return { type: BY_TAG[m[1]!]!, positionId: m[2]! };
  if ((m = LEG_VALUES.exec(data))) return Number(m[2]) > MAX_LEG ? undefined : { type: 'legValues', positionId: m[1]!, leg: Number(m[2]) };
  if ((m = LEG_RESULT.exec(data))) return Number(m[2]) > MAX_LEG ? undefined : { type: 'legResult', positionId: m[1]!, leg: Number(m[2]), code: m[3]! };
  if ((m = UNDO.exec(data))) return { type: 'undo', positionId: m[1]!, n: Number(m[2]) };
  if ((m = SIDE.exec(data))) return { type: 'side', lay: m[1] === 'l' };
  if ((m = PAGE.exec(data))) return { type: 'page', page: Number(m[1]), period: m[2]! };
  return undefined;
}
