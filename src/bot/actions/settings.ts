/**
 * The user's settings: parsing a value for one field (shared by /settings in one line and the
 * settings conversation), checking an alert destination with Telegram, and storing a change.
 */
import type { Api } from 'grammy';
import type { Lang, UserRecord } from '../../store/schema.js';
import type { BotRuntime } from '../deps.js';
import {
  fail,
  MAX_BANKROLL,
  MAX_STEP,
  ok,
  parseAmount,
  parseChatTarget,
  parseLang,
  parseQuietHours,
  type ChatTarget,
  type Parsed,
} from '../parse/values.js';
import { parseTimeZone } from '../parse/time-zone.js';
import { parseLoud, parseLoudRise, parseStale, type SoundChange } from '../parse/alert-sound.js';

/** Amounts a refusal shows as the right kind of answer. */
export const BANKROLL_EXAMPLE = '500';
const STEP_EXAMPLE = '0.5';

export const SETTING_FIELDS = ['lang', 'tz', 'bankroll', 'step', 'quiet', 'alerts', 'loud', 'loud_rise', 'stale'] as const;
export type SettingField = (typeof SETTING_FIELDS)[number];

// A Map, not an object: a typed word like "constructor" must never reach Object.prototype.
const FIELD_WORDS: ReadonlyMap<string, SettingField> = new Map(Object.entries({
  lang: 'lang',
  language: 'lang',
  язык: 'lang',
  tz: 'tz',
  timezone: 'tz',
  zone: 'tz',
  пояс: 'tz',
  bankroll: 'bankroll',
  bank: 'bankroll',
  банк: 'bankroll',
  step: 'step',
  rounding: 'step',
  шаг: 'step',
  quiet: 'quiet',
  тишина: 'quiet',
  alerts: 'alerts',
  target: 'alerts',
  куда: 'alerts',
  loud: 'loud',
  громко: 'loud',
  loud_rise: 'loud_rise',
  rise: 'loud_rise',
  рост: 'loud_rise',
  stale: 'stale',
  устаревшие: 'stale',
} satisfies Record<string, SettingField>));

export function parseField(word: string): SettingField | undefined {
  return FIELD_WORDS.get(word.trim().toLowerCase());
}

export type SettingChange =
  | { field: 'lang'; value: Lang }
  | { field: 'tz'; value: string }
  | { field: 'bankroll'; value: number }
  | { field: 'step'; value: number }
  | { field: 'quiet'; value: { from: string; to: string } | null }
  /** null: the private chat; else a checked group or channel id. */
  | { field: 'alerts'; value: number | null; title?: string }
  | SoundChange;

/** Parses a value for every field but 'alerts' (which needs Telegram: see `resolveAlertTarget`). */
export function parseSettingValue(field: Exclude<SettingField, 'alerts'>, text: string): Parsed<SettingChange> {
  switch (field) {
    case 'lang': {
      const r = parseLang(text);
      return r.ok ? ok({ field, value: r.value }) : r;
    }
    case 'tz': {
      const r = parseTimeZone(text);
      return r.ok ? ok({ field, value: r.value }) : r;
    }
    case 'bankroll': {
      const r = parseAmount(text, MAX_BANKROLL, BANKROLL_EXAMPLE);
      return r.ok ? ok({ field, value: r.value }) : r;
    }
    case 'step': {
      const r = parseAmount(text, MAX_STEP, STEP_EXAMPLE);
      return r.ok ? ok({ field, value: r.value }) : r;
    }
    case 'quiet': {
      const r = parseQuietHours(text);
      return r.ok ? ok({ field, value: r.value }) : r;
    }
    case 'loud':
      return parseLoud(text);
    case 'loud_rise':
      return parseLoudRise(text);
    case 'stale':
      return parseStale(text);
  }
}

type ChatApi = Pick<Api, 'getChat' | 'getChatMember'>;
const ADMIN_STATUSES = new Set(['creator', 'administrator']);

/**
 * Checks an alert destination: a group or channel where the bot is an admin and the user is an
 * admin too (so nobody can send alerts into someone else's chat).
 */
export async function resolveAlertTarget(api: ChatApi, botId: number, userId: number, target: ChatTarget): Promise<Parsed<SettingChange>> {
  if (target.kind === 'here') return ok({ field: 'alerts', value: null });
  let chatId: number;
  let title: string | undefined;
  try {
    const chat = await api.getChat(target.kind === 'id' ? target.id : target.username);
    if (chat.type === 'private') return fail('alerts_not_group');
    chatId = chat.id;
    title = chat.title;
  } catch {
    return fail('alerts_chat_unknown', { value: target.kind === 'id' ? String(target.id) : target.username });
  }
  try {
    const me = await api.getChatMember(chatId, botId);
    if (!ADMIN_STATUSES.has(me.status)) return fail('alerts_bot_not_admin', { chat: title ?? String(chatId) });
  } catch {
    return fail('alerts_bot_not_admin', { chat: title ?? String(chatId) });
  }
  try {
    const member = await api.getChatMember(chatId, userId);
    if (!ADMIN_STATUSES.has(member.status)) return fail('alerts_user_not_admin', { chat: title ?? String(chatId) });
  } catch {
    return fail('alerts_user_not_admin', { chat: title ?? String(chatId) });
  }
  return ok(title === undefined ? { field: 'alerts', value: chatId } : { field: 'alerts', value: chatId, title });
}

export { parseChatTarget };

/** Stores a change (creating the user when needed) and tells the scheduler. */
export function applySetting(rt: BotRuntime, userId: number, init: { chatId: number; lang: Lang }, change: SettingChange): UserRecord {
  const updated = rt.store.updateUser(
    userId,
    (draft) => {
      switch (change.field) {
        case 'lang':
          draft.lang = change.value;
          break;
        case 'tz':
          draft.timeZone = change.value;
          break;
        case 'bankroll':
          draft.bankroll = change.value;
          break;
        case 'step':
          draft.roundingStep = change.value;
          break;
        case 'quiet':
          draft.quietHours = change.value;
          break;
        case 'alerts':
          draft.alertChatId = change.value;
          break;
        case 'loud':
          for (const service of change.value.services) draft.loud[service] = { rise: 1, ...draft.loud[service], from: change.value.from };
          break;
        case 'loud_rise':
          for (const service of change.value.services) draft.loud[service] = { from: null, ...draft.loud[service], rise: change.value.rise };
          break;
        case 'stale':
          if ('mode' in change.value) draft.staleMode = change.value.mode;
          else draft.staleLegSeconds = { ...draft.staleLegSeconds, [change.value.which]: change.value.seconds };
          break;
      }
    },
    init,
  );
  rt.scheduler.refreshUser(userId);
  return updated;
}
