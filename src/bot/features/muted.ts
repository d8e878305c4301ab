/**
 * Attention controls a person can see: after "🔕 Mute event" an offer to mute longer (1 h, 24 h,
 * for good) or wider (the league, a bookmaker); /muted lists every mute and snooze with a button
 * to lift it. Mutes are personal, so these buttons work only in the user's private chat.
 */
import { Composer } from 'grammy';
import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import { clipText } from '../../lib/html.js';
import type { Names } from '../../service/dictionaries-model.js';
import type { Opportunity } from '../../service/opportunity.js';
import { SERVICES, type Service } from '../../service/services.js';
import { withMutedEvent } from '../../store/muted-events.js';
import {
  bookmakerMuteKey,
  eventMuteKey,
  leagueMuteKey,
  MUTE_FOREVER,
  scopeOf,
  withMute,
  type MuteEntry,
} from '../../store/mutes.js';
import type { UserRecord } from '../../store/schema.js';
import { decodeMuteAction, encodeMuteAction, kindPattern, muteKeyTag, type MuteAction, type MuteDuration } from '../callback-data/index.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { namesForLang } from '../ui/cards.js';
import { clipName } from '../ui/plain.js';
import { editInPlace } from '../ui/rendered.js';
import { formatClockTime } from '../ui/time-words.js';
import { serviceLabel } from '../../locales/services.js';
import type { MessageKey } from '../../locales/i18n.js';

const HOUR = 3_600_000;
const DURATION_MS: Record<Exclude<MuteDuration, 'forever'>, number> = { hour: HOUR, day: 24 * HOUR };
const DURATION_WORDS: Record<MuteDuration, MessageKey> = { hour: 'mute_for_hour', day: 'mute_for_day', forever: 'mute_for_forever' };
const DURATION_LABELS: Record<MuteDuration, MessageKey> = { hour: 'dur_hour', day: 'dur_day', forever: 'dur_forever' };
const DURATIONS: MuteDuration[] = ['hour', 'day', 'forever'];

/** The end of a mute of `duration` starting `now`. */
export function muteUntil(duration: MuteDuration, now: number): number {
  return duration === 'forever' ? MUTE_FOREVER : now + DURATION_MS[duration];
}

/** "Rune — Sinner" (or the league when the teams are unknown), clipped for a toast or a list. */
export function eventName(item: Pick<Opportunity, 'event'>): string {
  const { team1, team2, league } = item.event;
  const teams = [team1.trim(), team2.trim()].filter(Boolean).join(' — ');
  return clipText(teams || league.trim() || item.event.id, 80);
}

function leagueName(item: Pick<Opportunity, 'event'>, names: Names): string {
  return clipText(`${names.sport(item.event.sportId)} · ${item.event.league.trim()}`, 80);
}

/** The held item of `eventId` (for its name, league and bookmakers), if the latest lists still have it. */
export async function heldItemOf(rt: BotRuntime, userId: number, service: Service, match: (o: Opportunity) => boolean): Promise<Opportunity | undefined> {
  return (await rt.scheduler.latestItems(userId, service)).find(match);
}

/** Stores a mute of `key` (an event mute also in `mutedEvents`, which older code reads). */
export function storeMute(rt: BotRuntime, userId: number, key: string, entry: MuteEntry, now: number): void {
  rt.store.updateUser(userId, (draft) => {
    draft.mutes = withMute(draft.mutes, key, entry, now);
    if (scopeOf(key) === 'event') draft.mutedEvents = withMutedEvent(draft.mutedEvents, key.slice(2), entry.until, now);
  });
}

/**
 * The offer under a fresh event mute: the event, its league and its bookmakers, each for 1 h,
 * 24 h or for good. Buttons whose data would not fit are left out.
 */
export function muteOffer(ctx: BotContext, item: Opportunity | undefined, service: Service, eventId: string, names: Names): InlineKeyboardMarkup {
  const rows: InlineKeyboardButton[][] = [];
  const row = (scope: string, make: (d: MuteDuration) => MuteAction) => {
    const buttons = DURATIONS.flatMap((d) => {
      const data = encodeMuteAction(make(d));
      return data === undefined ? [] : [{ text: `${scope} · ${ctx.t(DURATION_LABELS[d])}`, callback_data: data }];
    });
    if (buttons.length > 0) rows.push(buttons);
  };
  row(ctx.t('mute_scope_event'), (duration) => ({ type: 'event', duration, service, eventId }));
  if (item) {
    if (item.event.league.trim() !== '') row(ctx.t('mute_scope_league'), (duration) => ({ type: 'league', duration, service, itemId: item.id }));
    const books = [...new Set(item.legs.map((l) => l.bookmakerId).filter((id): id is number => id !== undefined))].slice(0, 3);
    for (const id of books) row(clipName(names.bookmaker(id), 16), (duration) => ({ type: 'bookmaker', duration, bookmakerId: id }));
  }
  const lift = encodeMuteAction({ type: 'lift', tag: muteKeyTag(eventMuteKey(eventId)) });
  if (lift) rows.push([{ text: ctx.t('btn_unmute'), callback_data: lift }]);
  return { inline_keyboard: rows };
}

interface MutedView {
  text: string;
  markup: InlineKeyboardMarkup;
}

const SCOPE_LINE: Record<ReturnType<typeof scopeOf>, MessageKey> = {
  event: 'muted_event_line',
  league: 'muted_league_line',
  bookmaker: 'muted_bookmaker_line',
};

/** /muted: every live mute and snooze, soonest end first, each with a lift button. */
export function renderMuted(ctx: BotContext, user: Readonly<UserRecord> | undefined, now: number): MutedView {
  const t = ctx.t;
  const zone = user?.timeZone ?? 'UTC';
  const until = (ms: number) => (ms >= MUTE_FOREVER ? t('mute_for_forever') : t('until_time', { time: formatClockTime(ms, zone, ctx.lang) }));
  const mutes: [string, MuteEntry][] = Object.entries(user?.mutes ?? {}).filter(([, e]) => e.until > now);
  // Event mutes from before names were kept: listed by their id.
  for (const [id, end] of Object.entries(user?.mutedEvents ?? {})) {
    if (end > now && !Object.hasOwn(user?.mutes ?? {}, eventMuteKey(id))) mutes.push([eventMuteKey(id), { until: end, label: id }]);
  }
  mutes.sort((a, b) => a[1].until - b[1].until);
  const snoozes = SERVICES.flatMap((s): [Service, number][] => {
    const end = user?.snoozedUntil[s];
    return end !== undefined && end > now ? [[s, end]] : [];
  });
  if (mutes.length === 0 && snoozes.length === 0) return { text: t('muted_none'), markup: { inline_keyboard: [] } };
  const lines = [t('muted_title')];
  const rows: InlineKeyboardButton[][] = [];
  for (const [key, entry] of mutes.slice(0, 40)) {
    lines.push(t(SCOPE_LINE[scopeOf(key)], { name: entry.label, until: until(entry.until) }));
    const data = encodeMuteAction({ type: 'lift', tag: muteKeyTag(key) });
    if (data) rows.push([{ text: `↩️ ${clipName(entry.label, 40)}`, callback_data: data }]);
  }
  for (const [service, end] of snoozes) {
    lines.push(t('muted_snooze_line', { service: serviceLabel(service, t), until: until(end) }));
    const data = encodeMuteAction({ type: 'wake', service });
    if (data) rows.push([{ text: `▶️ ${serviceLabel(service, t)}`, callback_data: data }]);
  }
  lines.push('', t('muted_hint'));
  return { text: lines.join('\n'), markup: { inline_keyboard: rows } };
}

export function mutedFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('muted', async (ctx) => {
    const view = renderMuted(ctx, ctx.user, rt.clock.now());
    await ctx.reply(view.text, { reply_markup: view.markup });
  });

  composer.callbackQuery(kindPattern('mutes'), async (ctx) => {
    const action = decodeMuteAction(ctx.callbackQuery.data);
    if (!action) {
      await ctx.answerCallbackQuery({ text: ctx.tp('stale_button') });
      return;
    }
    // Mutes are one user's own: these buttons are only ever sent to their private chat.
    if (ctx.chat?.type !== 'private') {
      await ctx.answerCallbackQuery({ text: ctx.tp('mute_private_only'), show_alert: true });
      return;
    }
    const userId = ctx.from.id;
    const user = rt.store.getUser(userId);
    if (!user) {
      await ctx.answerCallbackQuery({ text: ctx.tp('need_key') });
      return;
    }
    const now = rt.clock.now();
    switch (action.type) {
      case 'lift': {
        const key = [...Object.keys(user.mutes), ...Object.keys(user.mutedEvents).map(eventMuteKey)].find((k) => muteKeyTag(k) === action.tag);
        const label = key === undefined ? undefined : (user.mutes[key]?.label ?? key.slice(2));
        if (key === undefined || label === undefined) {
          await ctx.answerCallbackQuery({ text: ctx.tp('mute_gone') });
        } else {
          await ctx.answerCallbackQuery({ text: ctx.tp('mute_lifted', { name: label }) });
          rt.store.updateUser(userId, (draft) => {
            delete draft.mutes[key];
            if (scopeOf(key) === 'event') delete draft.mutedEvents[key.slice(2)];
          });
        }
        break;
      }
      case 'wake': {
        await ctx.answerCallbackQuery({ text: ctx.tp('snooze_lifted', { service: serviceLabel(action.service, ctx.t) }) });
        rt.store.updateUser(userId, (draft) => {
          delete draft.snoozedUntil[action.service];
        });
        rt.scheduler.refreshUser(userId);
        break;
      }
      case 'event':
      case 'league':
      case 'bookmaker': {
        const names = await namesForLang(rt, ctx.lang);
        let key: string;
        let label: string;
        if (action.type === 'bookmaker') {
          key = bookmakerMuteKey(action.bookmakerId);
          label = clipText(names.bookmaker(action.bookmakerId), 80);
        } else if (action.type === 'event') {
          const held = await heldItemOf(rt, userId, action.service, (o) => o.event.id === action.eventId);
          key = eventMuteKey(action.eventId);
          label = held ? eventName(held) : (user.mutes[key]?.label ?? action.eventId);
        } else {
          const held = await heldItemOf(rt, userId, action.service, (o) => o.id === action.itemId);
          if (!held) {
            await ctx.answerCallbackQuery({ text: ctx.tp('mute_item_gone'), show_alert: true });
            return;
          }
          key = leagueMuteKey(held);
          label = leagueName(held, names);
        }
        await ctx.answerCallbackQuery({ text: ctx.tp('mute_set', { name: label, duration: ctx.t(DURATION_WORDS[action.duration]) }) });
        storeMute(rt, userId, key, { until: muteUntil(action.duration, now), label }, now);
        return;
      }
    }
    // A lift pressed on /muted redraws it; one pressed under an offer (which has mute buttons,
    // /muted has only lifts) leaves the offer as it is.
    const rows = ctx.callbackQuery.message?.reply_markup?.inline_keyboard ?? [];
    const isOffer = rows.flat().some((button) => 'callback_data' in button && /^m:[elb]:/.test(button.callback_data ?? ''));
    if (ctx.callbackQuery.message && !isOffer) {
      const view = renderMuted(ctx, rt.store.getUser(userId), now);
      await editInPlace(rt.rendered, ctx, view.text, view.markup);
    }
  });

  return composer;
}
