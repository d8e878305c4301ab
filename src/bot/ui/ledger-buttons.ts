/**
 * Buttons and words of the ledger that /open and the corrections share: the settle buttons a
 * position's markets allow (each result its lines can give: half results on quarter lines, a
 * middle's hit, half-hit and misses; a single's results on its market, a dead heat where it has one), ✏️ and 🗑 under a position, and a leg's result in words.
 * Apart from `ledger-text.ts`, which uses these, so that neither imports the other.
 */
import type { MessageKey, Translate } from '../../locales/i18n.js';
import type { LegOutcome } from '../../ledger/edits.js';
import { legResultChoices, lineCombos, RESULT_ORDER } from '../../ledger/markets.js';
import type { LedgerLeg, LegResult, Position } from '../../ledger/model.js';
import { encodeLedgerAction } from '../callback-data/ledger.js';
import { deadHeatShare, encodeLedgerEdit, legCode } from '../callback-data/ledger-edit.js';

type Buttons = { text: string; callback_data: string }[][];

export const RESULT_WORD: Record<LegResult, MessageKey> = {
  won: 'btn_settle_won',
  half_won: 'btn_settle_half_won',
  void: 'btn_settle_void',
  half_lost: 'btn_settle_half_lost',
  lost: 'btn_settle_lost',
  dead_heat: 'ledger_result_dead_heat',
};

/** A leg's result in words ("½ won", "dead heat ⅓"). */
export function resultWord(leg: Pick<LedgerLeg, 'result' | 'deadHeat'>, t: Translate): string {
  if (leg.result === null) return t('ledger_result_none');
  if (leg.result === 'dead_heat') return t('ledger_result_dead_heat_share', { share: deadHeatShare(leg.deadHeat ?? 0.5).join('/') });
  return t(RESULT_WORD[leg.result]);
}

/** The label of one combination of results: a single's result, a middle's hit, one outcome won, or each leg's result. */
function comboLabel(p: Position, combo: (LegOutcome | null)[], t: Translate): string {
  const placed = combo.map((o, i) => ({ o, i })).filter((x): x is { o: LegOutcome; i: number } => x.o !== null);
  const word = (o: LegOutcome) => resultWord({ result: o.result, deadHeat: o.deadHeat ?? null }, t);
  if (placed.length === 1) return word(placed[0]!.o);
  if (placed.every((x) => x.o.result === 'won')) return t('btn_settle_hit');
  if (p.kind === 'middles' && placed.every((x) => x.o.result === 'won' || x.o.result === 'half_won')) return t('ledger_half_hit');
  const winners = placed.filter((x) => x.o.result === 'won');
  if (winners.length === 1 && placed.every((x) => x.o.result === 'won' || x.o.result === 'lost')) return t('btn_settle_leg', { n: p.legs[winners[0]!.i]!.outcome + 1 });
  return placed.map((x) => `${p.legs[x.i]!.outcome + 1}) ${word(x.o)}`).join(' · ');
}

/** A single bet on another market: the results its market allows, one button each (a dead heat as ½ and ⅓). */
function singleCombos(p: Position): (LegOutcome | null)[][] | undefined {
  const placed = p.legs.filter((l) => l.status === 'placed');
  if (placed.length !== 1) return undefined;
  const at = p.legs.indexOf(placed[0]!);
  const outcomes = legResultChoices(placed[0]!).flatMap((result): LegOutcome[] =>
    result === 'dead_heat' ? [{ result, deadHeat: 1 / 2 }, { result, deadHeat: 1 / 3 }] : [{ result }],
  );
  return outcomes.map((o) => p.legs.map((_, i) => (i === at ? o : null)));
}

/**
 * The settle buttons of a position whose legs all hang on one score (totals, handicaps): each
 * result the lines allow, then void; undefined for other markets (the caller's per-outcome buttons).
 */
export function comboButtons(p: Position, t: Translate): Buttons | undefined {
  const lines = lineCombos(p)?.map((c) => c.map((r): LegOutcome | null => (r === null ? null : { result: r })));
  const combos = lines ?? singleCombos(p);
  if (!combos) return undefined;
  const b = (text: string, code: string) => ({ text: `#${p.id} ${text}`, callback_data: encodeLedgerAction({ type: 'settle', positionId: p.id, result: `m${code}` }) });
  const code = (combo: (LegOutcome | null)[]) => combo.map(legCode).join('');
  const voidAll = p.legs.map((l): LegOutcome | null => (l.status === 'placed' ? { result: 'void' } : null));
  // Best first for the first leg (a single: won … lost), void last.
  const first = p.legs.findIndex((l) => l.status === 'placed');
  const rank = (c: (LegOutcome | null)[]) => RESULT_ORDER.indexOf(c[first]?.result ?? 'void');
  const sorted = combos.filter((c) => code(c) !== code(voidAll)).sort((a, c) => rank(a) - rank(c));
  const buttons = [...sorted, voidAll].map((c) => b(comboLabel(p, c, t), code(c)));
  const rows: Buttons = [];
  const perRow = buttons.some((x) => x.text.length > 24) ? 1 : 3;
  for (let i = 0; i < buttons.length; i += perRow) rows.push(buttons.slice(i, i + perRow));
  return rows;
}

/** ✏️ and 🗑 under a position in /open and /positions. */
export function editRow(p: Position, t: Translate): Buttons[number] {
  return [
    { text: t('btn_ledger_edit', { id: p.id }), callback_data: encodeLedgerEdit({ type: 'edit', positionId: p.id }) },
    { text: t('btn_ledger_delete', { id: p.id }), callback_data: encodeLedgerEdit({ type: 'delete', positionId: p.id }) },
  ];
}

