/**
 * Answers to the bot's open questions (the access key, the secret, a stake amount, a lookup id, a
 * limited leg, a hedge's odds, a /books value, a ledger leg, a corrected leg, /add's questions), handled by
 * plain middleware before the conversations, so a secret never enters conversation state.
 * While the secret is expected, every message (a command too, an edit too) is deleted first; for
 * an hour after that question expired unanswered, a message that looks like a secret is too.
 */
import { tellFlowLeft } from './flow-left.js';
import { Composer } from 'grammy';
import { KNOWN_COMMANDS, leadingCommand } from '../commands.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { acceptStakeAmount } from './alert-actions.js';
import { acceptBookValue } from './books.js';
import { acceptHedgeOdds, acceptLegLimit } from './leg-limited.js';
import { acceptAccessKey, acceptSecret, deleteSecretMessage } from './connect.js';
import { acceptLookupId } from './lookup.js';
import { acceptLedgerLeg } from './placed.js';
import { acceptAddStep } from './ledger-add.js';
import { acceptLegFix } from './ledger-edit.js';

/** Secrets are long single words; shorter ones or sentences are left alone (as are commands). */
export const LATE_SECRET_MIN_LENGTH = 16;

function looksLikeSecret(text: string | undefined): boolean {
  const word = text?.trim() ?? '';
  if (word.length < LATE_SECRET_MIN_LENGTH || /\s/.test(word)) return false;
  const command = leadingCommand(word);
  return command === undefined || !KNOWN_COMMANDS.has(command);
}

export function pendingInputFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.on(['message', 'edited_message'], async (ctx, next) => {
    const pending = await rt.pending.get(ctx.chat.id, ctx.from.id);
    if (!pending) {
      if (!(await rt.pending.lateSecretWatch(ctx.chat.id, ctx.from.id)) || !looksLikeSecret(ctx.msg.text ?? ctx.msg.caption)) return next();
      const deleted = await deleteSecretMessage(ctx);
      ctx.log.info({ deleted }, 'deleted a late answer to an expired secret question');
      await ctx.reply(ctx.t(deleted ? 'late_secret_deleted' : 'late_secret_not_deleted'));
      return;
    }
    const secretExpected = pending.kind === 'connect-secret';
    // An edit answers nothing, but while the secret is expected it may carry it.
    if (ctx.editedMessage && !secretExpected) return next();
    const text = ctx.msg.text ?? ctx.msg.caption;
    const deleted = secretExpected && (await deleteSecretMessage(ctx));
    if (ctx.editedMessage) {
      await ctx.reply(ctx.t(deleted ? 'secret_edit_deleted' : 'connect_not_deleted'));
      return;
    }
    const command = leadingCommand(text);
    // A known command ends the question and runs; anything else answers it (even "/…" for a
    // secret, which was deleted like any other secret).
    if (command !== undefined && KNOWN_COMMANDS.has(command)) {
      await rt.pending.clear(ctx.chat.id, ctx.from.id);
      if (secretExpected && command !== 'connect') await ctx.reply(ctx.t('secret_question_closed'));
      // A ✏️ flow's answered legs were saved: "nothing was saved" would be false; what is recorded is said.
      else if (pending.kind === 'ledger-leg' && pending.flow) await tellFlowLeft(rt, ctx, ctx.from.id, pending.positionId, pending.leg);
      else if (command !== 'connect') await ctx.reply(ctx.t('flow_closed'));
      return next();
    }
    switch (pending.kind) {
      case 'connect-secret':
        return acceptSecret(rt, ctx, text, pending.accessKey, pending.service);
      case 'connect-key':
        if (text === undefined || ctx.msg.text === undefined) return void (await ctx.reply(ctx.t('expect_text')));
        return acceptAccessKey(rt, ctx, text, pending.service);
      case 'stake-amount':
        if (text === undefined || ctx.msg.text === undefined) return void (await ctx.reply(ctx.t('expect_text')));
        return acceptStakeAmount(rt, ctx, text, pending);
      case 'lookup-id':
        if (text === undefined || ctx.msg.text === undefined) return void (await ctx.reply(ctx.t('expect_text')));
        return acceptLookupId(rt, ctx, text, pending.what);
      case 'leg-limit':
        if (text === undefined || ctx.msg.text === undefined) return void (await ctx.reply(ctx.t('expect_text')));
        return acceptLegLimit(rt, ctx, text, pending);
      case 'hedge-odds':
        if (text === undefined || ctx.msg.text === undefined) return void (await ctx.reply(ctx.t('expect_text')));
        return acceptHedgeOdds(rt, ctx, text, pending);
      case 'ledger-leg':
        if (text === undefined || ctx.msg.text === undefined) return void (await ctx.reply(ctx.t('expect_text')));
        return acceptLedgerLeg(rt, ctx, text, pending);
      case 'ledger-fix':
        if (text === undefined || ctx.msg.text === undefined) return void (await ctx.reply(ctx.t('expect_text')));
        return acceptLegFix(rt, ctx, text, pending);
      case 'ledger-add':
        if (text === undefined || ctx.msg.text === undefined) return void (await ctx.reply(ctx.t('expect_text')));
        return acceptAddStep(rt, ctx, text, pending);
      case 'book-value':
        if (text === undefined || ctx.msg.text === undefined) return void (await ctx.reply(ctx.t('expect_text')));
        return acceptBookValue(rt, ctx, text, pending);
    }
  });

  return composer;
}
