/**
 * The callback data of the ledger's buttons (`l:`): a leg of a position kept as shown, refused or
 * edited, an open hedge given up, a position settled, a page of /open. Position ids are the
 * user's own (base 36): a button only ever reaches the presser's ledger, so a forged id finds
 * nothing or the presser's own position.
 *
 *   l:k:<pos>:<leg>   keep the leg as shown (✏️ flow)
 *   l:r:<pos>:<leg>   the bookmaker refused the leg
 *   l:e:<pos>:<leg>   type the odds and stake taken for the leg (or a hedge)
 *   l:g:<pos>         give up the open hedge
 *   l:s:<pos>:<res>   settle: w hw v hl l (a single), o<k> (the outcome k won), h (a middle hit),
 *                     m<one char per leg> (each leg's own result: see `LEG_CODES` in ledger-edit.ts)
 *   l:p:<page>        a page of /open
 *   l:d:<m|s|p>       /clv: the de-vig method (multiplicative, Shin, power)
 */
import { withinCallbackLimit } from '../../lib/callback-data.js';
import type { DevigMethod } from '../../ledger/model.js';
import { CALLBACK_PREFIXES } from './registry.js';

export type SettleCode = 'w' | 'hw' | 'v' | 'hl' | 'l' | 'h' | `o${number}` | `m${string}`;

export type LedgerAction =
  | { type: 'keep' | 'refuse' | 'edit'; positionId: string; leg: number }
  | { type: 'giveUp'; positionId: string }
  | { type: 'settle'; positionId: string; result: SettleCode }
  | { type: 'page'; page: number }
  | { type: 'devig'; method: DevigMethod };

const PREFIX = CALLBACK_PREFIXES.ledger;
const POS = '([0-9a-z]{1,10})';
const LEG_FORM = new RegExp(`^${PREFIX}([kre]):${POS}:([0-9]{1,2})$`);
const GIVE_UP = new RegExp(`^${PREFIX}g:${POS}$`);
const SETTLE = new RegExp(`^${PREFIX}s:${POS}:(w|hw|v|hl|l|h|o[0-9]{1,2}|m[whvql2-9a-e-]{1,16})$`);
const PAGE = new RegExp(`^${PREFIX}p:([0-9]{1,4})$`);
const DEVIG = new RegExp(`^${PREFIX}d:([msp])$`);
const LEG_TAGS = { keep: 'k', refuse: 'r', edit: 'e' } as const;
const METHOD_TAGS = { multiplicative: 'm', shin: 's', power: 'p' } as const satisfies Record<DevigMethod, string>;
const METHODS: Record<string, DevigMethod> = { m: 'multiplicative', s: 'shin', p: 'power' };
const MAX_LEG = 15;

export function encodeLedgerAction(action: LedgerAction): string {
  switch (action.type) {
    case 'keep':
    case 'refuse':
    case 'edit':
      return `${PREFIX}${LEG_TAGS[action.type]}:${action.positionId}:${action.leg}`;
    case 'giveUp':
      return `${PREFIX}g:${action.positionId}`;
    case 'settle':
      return `${PREFIX}s:${action.positionId}:${action.result}`;
    case 'page':
      return `${PREFIX}p:${action.page}`;
    case 'devig':
      return `${PREFIX}d:${METHOD_TAGS[action.method]}`;
  }
}

/** The action, or `undefined` for anything that is not exactly one of the forms above. */
export function decodeLedgerAction(raw: unknown): LedgerAction | undefined {
  const data = withinCallbackLimit(raw);
  if (data === undefined) return undefined;
  let m = LEG_FORM.exec(data);
  if (m) {
    const leg = Number(m[3]);
    if (leg > MAX_LEG) return undefined;
    const type = m[1] === 'k' ? 'keep' : m[1] === 'r' ? 'refuse' : 'edit';
    return { type, positionId: m[2]!, leg };
  }
  if ((m = GIVE_UP.exec(data))) return { type: 'giveUp', positionId: m[1]! };
  if ((m = SETTLE.exec(data))) {
    const result = m[2]! as SettleCode;
    if (result.startsWith('o') && Number(result.slice(1)) > MAX_LEG) return undefined;
    return { type: 'settle', positionId: m[1]!, result };
  }
  if ((m = PAGE.exec(data))) return { type: 'page', page: Number(m[1]) };
  if ((m = DEVIG.exec(data))) return { type: 'devig', method: METHODS[m[1]!]! };
  return undefined;
}
