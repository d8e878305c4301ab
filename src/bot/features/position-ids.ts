/**
 * Position numbers as users see them stay contiguous: a number taken for a record the store then
 * refused (a full ledger, a failed write), or the newest position's after 🗑, goes back, so the
 * next position takes it. A deleted position in the middle keeps its hole: renumbering would change
 * the numbers already printed on alerts, in /open and in exported CSVs.
 */
import type { BotRuntime } from '../deps.js';

export async function giveBack(rt: Pick<BotRuntime, 'store' | 'logger'>, userId: number, id: string): Promise<void> {
  try {
    await rt.store.ledger.giveBackId(userId, id);
  } catch (err) {
    rt.logger.debug({ err }, 'a position number could not be given back');
  }
}
