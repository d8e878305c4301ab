/**
 * /connect: the access key, then the secret, or both in one line. The secret is taken by a plain
 * handler (never a conversation, which would keep the update), its message deleted at once, and
 * it goes straight into the vault.
 */
import { Composer } from 'grammy';
import { parseService, type Service } from '../../service/services.js';
import { clipEcho } from '../parse/values.js';
import { connectKey, type ConnectOutcome } from '../actions/connect.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { maskKey } from '../ui/mask.js';
import { leaveFlows } from '../flows.js';
import { quietly } from '../ui/quietly.js';
import { serviceLabel } from '../../locales/services.js';
import { translator } from '../../locales/i18n.js';
import { formatClockTime, waitWords } from '../ui/time-words.js';
import { budgetRule, coverageLines } from '../ui/budget-text.js';

const DEFAULT_CHECK_SERVICE: Service = 'arbs_prematch';
// At least one letter or digit: a key of dots only ("..") would be a step up in the service's URL paths.
const ACCESS_KEY_RE = /^(?=[^]*[A-Za-z0-9])[A-Za-z0-9._~:-]{2,128}$/;
const SECRET_RE = /^\S{4,512}$/;

/** Updates whose message was already deleted (and whether that worked), so no handler deletes twice. */
const deletions = new WeakMap<BotContext, boolean>();

/**
 * Deletes the message (or edit) that may carry a secret, once per update; false when Telegram
 * would not let us, so the answer can ask the user to delete it.
 */
export async function deleteSecretMessage(ctx: BotContext): Promise<boolean> {
  const done = deletions.get(ctx);
  if (done !== undefined) return done;
  const chatId = ctx.chat?.id;
  const messageId = ctx.msg?.message_id;
  let deleted = false;
  if (chatId !== undefined && messageId !== undefined) {
    try {
      await ctx.api.deleteMessage(chatId, messageId);
      deleted = true;
    } catch (err) {
      ctx.log.warn({ err }, 'could not delete the message with the secret');
    }
  }
  deletions.set(ctx, deleted);
  return deleted;
}

/**
 * Every service the key reads for the user, each with its coverage in words (newcomer report
 * #35: the answer named only the service the pair was checked with); with none yet, how a key's
 * token budget is shared.
 */
function keyReads(rt: BotRuntime, ctx: BotContext): string {
  const user = rt.store.getUser(ctx.from?.id ?? 0);
  const coverage = user ? rt.scheduler.coverage(user.id) : {};
  const lines = coverageLines(coverage, user?.serviceRank, ctx.t);
  if (lines !== '') return `${ctx.t('connect_reads')}\n${lines}`;
  return `${ctx.t('connect_reads_none')}\n\n${budgetRule(rt.config.LIMIT_TOKENS_PER_HOUR, ctx.t)}`;
}

function outcomeText(rt: BotRuntime, ctx: BotContext, outcome: ConnectOutcome): string {
  const key = outcome.masked;
  switch (outcome.kind) {
    case 'same_pair':
      return `${ctx.t('connect_same', { key })}\n\n${keyReads(rt, ctx)}`;
    case 'wrong_known':
      return ctx.t('connect_wrong_known', { key, at: formatClockTime(outcome.acceptedAt, ctx.user?.timeZone ?? 'UTC', ctx.lang) });
    case 'connected': {
      const lines = [ctx.t(outcome.replacedKey ? 'connect_ok_replaced' : 'connect_ok', { key, service: serviceLabel(outcome.service, ctx.t) })];
      if (outcome.rewriteFailed.length > 0) {
        lines.push(
          ctx.t('connect_rewrite_failed', { list: outcome.rewriteFailed.map((s) => serviceLabel(s, ctx.t)).join(', '), n: outcome.rewriteFailed.length }),
        );
      }
      lines.push(keyReads(rt, ctx));
      return lines.join('\n\n');
    }
    case 'no_access':
      return `${ctx.t('connect_no_access', { key, service: serviceLabel(outcome.service, ctx.t) })}\n\n${keyReads(rt, ctx)}`;
    case 'wrong_pair':
      return ctx.t('connect_wrong', { key });
    case 'taken':
      return ctx.t('connect_taken', { key });
    case 'rate_limited':
      return ctx.t(outcome.newcomers ? 'connect_newcomers_share' : outcome.userShare ? 'connect_user_share' : 'connect_rate_limited', {
        key,
        min: Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000)),
      });
    case 'capped':
      return ctx.t('cap_connect', { wait: waitWords(outcome.waitMs, ctx.t) });
    case 'unavailable':
      return ctx.t('connect_unavailable', { key });
  }
}

/** Asks for the access key (the first step of the guided /connect). */
export async function beginConnect(rt: BotRuntime, ctx: BotContext, service: Service = DEFAULT_CHECK_SERVICE): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  await rt.pending.set(ctx.chat.id, ctx.from.id, { kind: 'connect-key', service });
  await ctx.reply(ctx.t('connect_ask_key'));
}

/** Takes the access key typed after /connect and asks for the secret. */
export async function acceptAccessKey(rt: BotRuntime, ctx: BotContext, text: string, service: Service): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  const accessKey = text.trim();
  if (!ACCESS_KEY_RE.test(accessKey)) {
    // Never quoted: at this step a pasted secret is as likely as a key.
    await ctx.reply(ctx.t(accessKey.length > 128 ? 'too_long' : 'connect_bad_key', { max: 128, value: '…' }));
    return;
  }
  // Whether someone holds the key is said only once the secret proves the pair (actions/connect.ts).
  await rt.pending.set(ctx.chat.id, ctx.from.id, { kind: 'connect-secret', service, accessKey });
  await ctx.reply(ctx.t('connect_ask_secret', { key: maskKey(accessKey) }));
}

/**
 * Takes the secret: the message is deleted first, whatever it holds. `text` is used once, for
 * the vault, and never logged.
 */
export async function acceptSecret(rt: BotRuntime, ctx: BotContext, text: string | undefined, accessKey: string, service: Service): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  const deleted = await deleteSecretMessage(ctx);
  const secret = text?.trim() ?? '';
  if (!SECRET_RE.test(secret)) {
    // The question stays open: a bad secret changes nothing.
    await ctx.reply(ctx.t('connect_bad_secret'));
    return;
  }
  await rt.pending.clear(ctx.chat.id, ctx.from.id);
  await finishConnect(rt, ctx, accessKey, secret, service, deleted);
}

async function finishConnect(rt: BotRuntime, ctx: BotContext, accessKey: string, secret: string, service: Service, deleted: boolean, serviceNamed = false): Promise<void> {
  if (!ctx.chat || !ctx.from) return;
  await rt.pending.endLateSecret(ctx.chat.id, ctx.from.id);
  await quietly(ctx.log, 'showing "typing"', () => ctx.replyWithChatAction('typing'));
  const outcome = await connectKey(rt, { userId: ctx.from.id, chatId: ctx.chat.id, lang: ctx.lang, accessKey, secret, service, serviceNamed });
  ctx.log.info({ outcome: outcome.kind, service }, 'key check');
  const note = deleted ? ctx.t('connect_deleted') : ctx.t('connect_not_deleted');
  const next = outcome.kind === 'connected' || outcome.kind === 'no_access' ? `\n\n${ctx.t('connect_next')}` : '';
  await ctx.reply(`${outcomeText(rt, ctx, outcome)}\n\n<i>${note}</i>${next}`);
  if ((outcome.kind === 'connected' || outcome.kind === 'no_access') && outcome.tookOverFrom) {
    const { chatId, lang } = outcome.tookOverFrom;
    const text = translator(lang)('connect_taken_over', { key: outcome.masked });
    await quietly(ctx.log, 'telling the former holder of a key it was taken over', () => ctx.api.sendMessage(chatId, text));
  }
}

export function connectFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('connect', async (ctx) => {
    const args = ctx.match.trim().split(/\s+/).filter(Boolean);
    if (args.length <= 1) {
      await leaveFlows(rt, ctx);
      if (args.length === 0) return beginConnect(rt, ctx);
      return acceptAccessKey(rt, ctx, args[0] ?? '', DEFAULT_CHECK_SERVICE);
    }

    // The line carries a secret: delete it before anything else, whatever is wrong with it.
    const deleted = await deleteSecretMessage(ctx);
    await leaveFlows(rt, ctx);
    const [accessKey = '', secret = '', serviceWord, ...extra] = args;
    const service = serviceWord === undefined ? DEFAULT_CHECK_SERVICE : parseService(serviceWord);
    if (extra.length > 0 || service === undefined) {
      const problem = service === undefined && serviceWord !== undefined && extra.length === 0
        ? ctx.t('unknown_service', { value: clipEcho(serviceWord) })
        : ctx.t('connect_usage');
      await ctx.reply(`${problem}\n\n<i>${ctx.t(deleted ? 'connect_deleted' : 'connect_not_deleted')}</i>`);
      return;
    }
    if (!ACCESS_KEY_RE.test(accessKey)) {
      await ctx.reply(`${ctx.t('connect_bad_key')}\n\n<i>${ctx.t(deleted ? 'connect_deleted' : 'connect_not_deleted')}</i>`);
      return;
    }
    if (!SECRET_RE.test(secret)) {
      await ctx.reply(`${ctx.t('connect_bad_secret')}\n\n<i>${ctx.t(deleted ? 'connect_deleted' : 'connect_not_deleted')}</i>`);
      return;
    }
    await finishConnect(rt, ctx, accessKey, secret, service, deleted, serviceWord !== undefined);
  });

  return composer;
}
