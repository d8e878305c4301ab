/**
 * A ✏️ Placed-differently flow left half-way (any command, /cancel included): the legs the
 * user answered are kept (they are bets the user placed), the legs not answered stay as the message
 * showed them, and the user is told so with the figures the alert's ✅ line now carries; never the
 * re-solved suggestions, which were only offered. The alert's own stakes are never changed by the flow.
 */
import { fmtMoney, withUnit } from '../../alerts/printed.js';
import { placedLegs } from '../../ledger/model.js';
import { worstCase } from '../../ledger/settle.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';

export async function tellFlowLeft(rt: BotRuntime, ctx: BotContext, userId: number, positionId: string, leg: number): Promise<void> {
  try {
    const p = await rt.store.ledger.position(userId, positionId);
    if (!p) return;
    const currency = p.currency || (rt.store.getUser(userId)?.currency ?? '');
    const stakes = withUnit(placedLegs(p).map((l) => fmtMoney(l.stake, { whole: true })).join(' / '), currency);
    const worst = worstCase(p);
    const shown = worst === undefined || !Number.isFinite(worst) ? stakes : `${stakes} · ${ctx.t('ledger_flow_left_worst', { worst: withUnit(fmtMoney(worst, { signed: true }), currency) })}`;
    await ctx.reply(ctx.t('ledger_flow_left', { id: p.id, n: leg + 1, shown }));
  } catch (err) {
    ctx.log.warn({ err }, 'the half-way ✏️ flow could not be summed up');
  }
}
