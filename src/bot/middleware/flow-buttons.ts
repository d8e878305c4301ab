/**
 * The buttons of /filters, /forget, the guided flows, /books, the ledger and ✏️ Leg limited's
 * question act only in the private chat of the user pressing them (a question asked from a
 * button in a group is asked in the private chat: ask-private.ts). Such a message never exists elsewhere, but callback data can be forged and
 * a flow entered from a group would take every member's presses: anything else is refused.
 * (Alert buttons are checked against the alert's owner in alert-actions.)
 */
import type { MiddlewareFn } from 'grammy';
import { callbackKind, type CallbackKind } from '../callback-data/index.js';
import type { BotContext } from '../context.js';

/** The kinds whose buttons only ever sit in their owner's private chat. */
// books, ledger and legLimit too: a press of one in a group must never create or change a user
// record, whose chat would then be the group (audit 3, L1).
const PRIVATE_KINDS: ReadonlySet<CallbackKind> = new Set(['filters', 'forget', 'flow', 'books', 'ledger', 'legLimit']);

export function flowButtonsGuard(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const query = ctx.callbackQuery;
    const kind = callbackKind(query?.data);
    if (!query || kind === undefined || !PRIVATE_KINDS.has(kind)) return next();
    if (ctx.chat?.type === 'private' && ctx.chat.id === query.from.id) return next();
    ctx.log.info('refused: a flow button outside its owner\'s private chat');
    await ctx.answerCallbackQuery({ text: ctx.tp('not_your_button'), show_alert: true });
  };
}
