/**
 * /filters: each service's filter and state (a snooze too), with buttons to pause, resume, edit and
 * delete; and each draft (a filter the token budget has not let be written yet: save-filter.ts)
 * with the time it is expected to be written, to edit or delete.
 */
import { Composer } from 'grammy';
import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import { SERVICES, type Service } from '../../service/services.js';
import { subscriptionKey, type UserRecord } from '../../store/schema.js';
import { decodeFiltersAction, encodeFiltersAction, kindPattern, type FiltersActionType } from '../callback-data/index.js';
import type { BotContext } from '../context.js';
import { FILTER_CONVERSATION, type FilterConversationArgs } from '../conversations/filter.js';
import type { BotRuntime } from '../deps.js';
import { namesForLang } from '../ui/cards.js';
import type { Names } from '../../service/dictionaries-model.js';
import { describeFilter, filterState, LIST_NAMES } from '../ui/filter-text.js';
import { MESSAGE_MAX, plainLength } from '../ui/plain.js';
import { serviceLabel } from '../../locales/services.js';
import { leaveFlows, refuseWhileSecretExpected } from '../flows.js';
import { editInPlace } from '../ui/rendered.js';
import { formatClockTime } from '../ui/time-words.js';
import { draftWhen } from '../ui/budget-text.js';
import { miniAppRow } from './mini-app.js';

type View = { text: string; markup: InlineKeyboardMarkup };

async function renderList(rt: BotRuntime, ctx: BotContext, user: Readonly<UserRecord> | undefined): Promise<View> {
  const services = SERVICES.filter((s) => user?.filters[s] !== undefined || user?.drafts[s] !== undefined);
  if (!user || services.length === 0) return { text: ctx.t('filters_none'), markup: { inline_keyboard: [] } };
  const names = await namesForLang(rt, ctx.lang);
  // Six filters with eight long names in each list would pass Telegram's 4,096 characters:
  // fewer names a list until the whole fits (one name each always does, names being clipped).
  const now = rt.clock.now();
  const coverage = rt.scheduler.coverage(user.id);
  const draftAt = (s: Service) => draftWhen(coverage[s]?.nextTokenAt, now, user.timeZone, ctx.lang, ctx.t);
  let view = renderWith(ctx, user, services, names, LIST_NAMES, now, draftAt);
  for (const maxNames of [4, 2, 1]) {
    if (plainLength(view.text) <= MESSAGE_MAX) break;
    view = renderWith(ctx, user, services, names, maxNames, now, draftAt);
  }
  return view;
}

type DraftAt = (service: Service) => { at: string; wait: string } | undefined;

function renderWith(ctx: BotContext, user: Readonly<UserRecord>, services: Service[], names: Names, maxNames: number, now: number, draftAt: DraftAt): View {
  const blocks: string[] = [ctx.t('filters_title')];
  const rows: InlineKeyboardButton[][] = [];
  for (const s of services) {
    const record = user.filters[s];
    const draft = user.drafts[s];
    const label = serviceLabel(s, ctx.t);
    const data = (type: FiltersActionType) => encodeFiltersAction({ type, service: s });
    const when = draft && draftAt(s);
    const draftState = when ? ctx.t('filters_draft', when) : ctx.t('filters_draft_later');
    if (!record) {
      if (!draft) continue;
      blocks.push(`<b>${ctx.t('value', { value: label })}</b> — ${draftState}\n${describeFilter(s, draft.settings, names, ctx.t, maxNames)}`);
      rows.push([{ text: `${ctx.t('btn_edit')} ${label}`, callback_data: data('edit') }, { text: ctx.t('btn_delete'), callback_data: data('delete') }]);
      continue;
    }
    const snoozed = user.snoozedUntil[s];
    const snoozeLine = snoozed !== undefined && snoozed > now ? `\n${ctx.t('filters_snoozed', { until: formatClockTime(snoozed, user.timeZone, ctx.lang) })}` : '';
    // An edit the budget has not let be written yet: the filter above keeps running until then.
    const draftLines = draft ? `\n${ctx.t('filters_draft_over')}${draftState}\n${describeFilter(s, draft.settings, names, ctx.t, maxNames)}` : '';
    blocks.push(`<b>${ctx.t('value', { value: label })}</b> — ${filterState(record, ctx.t)}${snoozeLine}\n${describeFilter(s, record.settings, names, ctx.t, maxNames)}${draftLines}`);
    rows.push([
      record.paused ? { text: `▶ ${label}`, callback_data: data('resume') } : { text: `⏸ ${label}`, callback_data: data('pause') },
      { text: ctx.t('btn_edit'), callback_data: data('edit') },
      { text: ctx.t('btn_delete'), callback_data: data('delete') },
    ]);
  }
  return { text: blocks.join('\n\n'), markup: { inline_keyboard: rows } };
}

async function showInPlace(rt: BotRuntime, ctx: BotContext): Promise<void> {
  const view = await renderList(rt, ctx, ctx.user);
  await editInPlace(rt.rendered, ctx, view.text, view.markup);
}

/** Sets a filter's pause state; false when there is no such filter. */
export function setPaused(rt: BotRuntime, userId: number, service: Service, paused: boolean): boolean {
  const user = rt.store.getUser(userId);
  if (!user?.filters[service]) return false;
  rt.store.updateUser(userId, (draft) => {
    const record = draft.filters[service];
    if (!record) return;
    record.paused = paused;
    record.pausedReason = paused ? 'user' : null;
  });
  return true;
}

export function filtersFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('filters', async (ctx) => {
    const view = await renderList(rt, ctx, ctx.user);
    await ctx.reply(view.text, { reply_markup: { inline_keyboard: [...view.markup.inline_keyboard, ...miniAppRow(rt.config.MINI_APP_URL, ctx, 'filters')] } });
  });

  composer.callbackQuery(kindPattern('filters'), async (ctx) => {
    const action = decodeFiltersAction(ctx.callbackQuery.data);
    if (!action) {
      await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') });
      return;
    }
    const { service } = action;
    const userId = ctx.from.id;
    const record = ctx.user?.filters[service];
    const draft = ctx.user?.drafts[service];
    if (!record && !draft) {
      await ctx.answerCallbackQuery({ text: ctx.tp('filter_gone') });
      await showInPlace(rt, ctx);
      return;
    }
    const label = serviceLabel(service, ctx.t);
    switch (action.type) {
      case 'pause':
      case 'resume': {
        if (!record) {
          await ctx.answerCallbackQuery({ text: ctx.tp('filter_gone') });
          await showInPlace(rt, ctx);
          return;
        }
        const pause = action.type === 'pause';
        setPaused(rt, userId, service, pause);
        rt.scheduler.refreshUser(userId);
        await ctx.answerCallbackQuery({ text: ctx.tp(pause ? 'paused_one' : 'resumed_one', { service: label }) });
        await showInPlace(rt, ctx);
        return;
      }
      case 'edit': {
        // Editing would drop the secret question and take the pasted secret into the builder.
        if (await refuseWhileSecretExpected(rt, ctx)) return;
        await ctx.answerCallbackQuery();
        await leaveFlows(rt, ctx, { quiet: true });
        // A draft is the user's latest build: editing starts from it.
        const args: FilterConversationArgs = { lang: ctx.lang, service, initial: (draft ?? record)!.settings };
        await ctx.conversation.enter(FILTER_CONVERSATION, args);
        return;
      }
      case 'delete': {
        await ctx.answerCallbackQuery();
        await editInPlace(rt.rendered, ctx, ctx.t('filter_delete_confirm', { service: label }), {
          inline_keyboard: [
            [
              { text: ctx.t('btn_delete_yes'), callback_data: encodeFiltersAction({ type: 'deleteYes', service }) },
              { text: ctx.t('btn_no'), callback_data: encodeFiltersAction({ type: 'deleteNo', service }) },
            ],
          ],
        });
        return;
      }
      case 'deleteYes': {
        // The draft goes with the filter: deleted, it must not come back when the budget allows.
        rt.store.updateUser(userId, (changed) => {
          delete changed.filters[service];
          delete changed.drafts[service];
          delete changed.status[service];
          delete changed.snoozedUntil[service];
        });
        rt.store.alerts.deleteSubscription(subscriptionKey(userId, service));
        rt.scheduler.refreshUser(userId);
        await ctx.answerCallbackQuery({ text: ctx.tp(record ? 'filter_deleted' : 'filter_draft_deleted', { service: label }) });
        await showInPlace(rt, ctx);
        return;
      }
      case 'deleteNo': {
        await ctx.answerCallbackQuery();
        await showInPlace(rt, ctx);
      }
    }
  });

  return composer;
}
