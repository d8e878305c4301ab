/**
 * /settings as a menu: language, time zone, bankroll, rounding step, quiet hours, where alerts
 * go, and how they sound (loud threshold, loud again after a rise, stale legs). Each change is checked, stored at once (in `external`) and the menu shown again.
 */
import { translator, type Lang, type Translate } from '../../locales/i18n.js';
import type { UserRecord } from '../../store/schema.js';
import { SERVICES } from '../../service/services.js';
import {
  applySetting,
  parseChatTarget,
  parseSettingValue,
  resolveAlertTarget,
  type SettingChange,
  type SettingField,
} from '../actions/settings.js';
import type { ConvContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { fail, type Parsed } from '../parse/values.js';
import { describeSettings, staleDefaultsOf, zoneSavedText } from '../ui/settings-text.js';
import { askValue, type ReadyAnswer } from './ask-value.js';
import { btn, closePrompt, keyboard, sayOnClose, sendPrompt, waitAnswer, type Convo } from './prompt.js';

export const SETTINGS_CONVERSATION = 'settings';

export interface SettingsConversationArgs {
  lang: Lang;
}

const FIELD_PROMPTS: Record<SettingField, Parameters<Translate>[0]> = {
  lang: 'ask_lang',
  tz: 'ask_tz',
  bankroll: 'ask_bankroll',
  step: 'ask_step',
  quiet: 'ask_quiet',
  alerts: 'ask_alerts',
  loud: 'ask_loud',
  loud_rise: 'ask_loud_rise',
  stale: 'ask_stale',
};

function readyAnswers(field: SettingField, t: Translate): ReadyAnswer<SettingChange>[] {
  switch (field) {
    case 'lang':
      return [
        { label: 'English', value: { field, value: 'en' } },
        { label: 'Русский', value: { field, value: 'ru' } },
      ];
    case 'tz':
      return ['UTC', 'Europe/London', 'Europe/Moscow'].map((tz) => ({ label: tz, value: { field, value: tz } }));
    case 'bankroll':
      return [100, 500, 1000].map((n) => ({ label: String(n), value: { field, value: n } }));
    case 'step':
      return [0.5, 1, 5, 10].map((n) => ({ label: String(n), value: { field, value: n } }));
    case 'quiet':
      return [
        { label: t('off'), value: { field, value: null } },
        { label: '23:00–07:00', value: { field, value: { from: '23:00', to: '07:00' } } },
      ];
    case 'alerts':
      return [{ label: t('alerts_here'), value: { field, value: null } }];
    case 'loud':
      return [
        { label: t('loud_every'), value: { field, value: { services: [...SERVICES], from: null } } },
        ...[1, 2, 3].map((n) => ({ label: `+${n}%`, value: { field, value: { services: [...SERVICES], from: n } } })),
      ];
    case 'loud_rise':
      return [0.5, 1, 2].map((n) => ({ label: `+${n}`, value: { field, value: { services: [...SERVICES], rise: n } } }));
    case 'stale':
      return (['quiet', 'drop', 'show'] as const).map((mode) => ({ label: t(`stale_mode_${mode}`), value: { field, value: { mode } } }));
  }
}

export function createSettingsConversation(rt: BotRuntime) {
  return async function settings(conversation: Convo, ctx: ConvContext, args: SettingsConversationArgs): Promise<void> {
    let lang = args.lang;
    let t = translator(lang);
    const userId = ctx.from?.id;
    const chatId = ctx.chat?.id;
    if (userId === undefined || chatId === undefined) return;
    sayOnClose(conversation, 'settings_closed');

    // "Saved" heads the next menu rather than going as a message of its own: a step then sends
    // at most three messages, which the chat's burst takes without a wait.
    let saved: string | undefined;
    for (;;) {
      const [user, shownAt] = await conversation.external((): [UserRecord | null, number] => [rt.store.getUser(userId) ?? null, rt.clock.now()]);
      const menu = keyboard([
        [btn(t('set_lang'), { type: 'field', field: 'lang' }), btn(t('set_tz'), { type: 'field', field: 'tz' })],
        [btn(t('set_bankroll'), { type: 'field', field: 'bankroll' }), btn(t('set_step'), { type: 'field', field: 'step' })],
        [btn(t('set_quiet'), { type: 'field', field: 'quiet' }), btn(t('set_alerts'), { type: 'field', field: 'alerts' })],
        [btn(t('set_loud'), { type: 'field', field: 'loud' }), btn(t('set_loud_rise'), { type: 'field', field: 'loud_rise' })],
        [btn(t('set_stale'), { type: 'field', field: 'stale' })],
        [btn(t('btn_done'), { type: 'done' })],
      ]);
      const head = saved === undefined ? '' : `${saved}\n\n`;
      const menuId = await sendPrompt(ctx, `${head}${t('settings_title')}\n\n${describeSettings(user ?? undefined, t, lang, shownAt, staleDefaultsOf(rt.config))}`, menu);
      let field: SettingField | undefined;
      let answerCtx: ConvContext = ctx;
      while (field === undefined) {
        const answer = await waitAnswer(conversation, t, menuId);
        answerCtx = answer.ctx;
        if (answer.kind === 'text') {
          await answer.ctx.reply(t('use_buttons'));
          continue;
        }
        if (answer.button.type === 'done') {
          await closePrompt(answer.ctx, menuId);
          await answer.ctx.reply(t('settings_done'));
          return;
        }
        // The decoder let only the fields' own names through (never "constructor").
        if (answer.button.type === 'field') field = answer.button.field;
      }
      await closePrompt(answerCtx, menuId);

      const chosenField = field;
      const change = await askValue<SettingChange>(
        conversation,
        answerCtx,
        t,
        t(FIELD_PROMPTS[chosenField]),
        readyAnswers(chosenField, t),
        async (text): Promise<Parsed<SettingChange>> => {
          if (chosenField !== 'alerts') return parseSettingValue(chosenField, text);
          const target = parseChatTarget(text);
          if (!target.ok) return target;
          // Telegram is asked through the outside context, so the answer is a plain result.
          const checked = await conversation.external((outer) => resolveAlertTarget(outer.api, outer.me.id, userId, target.value));
          return checked.ok ? checked : fail(checked.problem.key, checked.problem.vars);
        },
        chosenField === 'step' ? 4 : 3,
      );
      const now = await conversation.external(() => {
        applySetting(rt, userId, { chatId, lang }, change);
        return rt.clock.now();
      });
      if (change.field === 'lang') {
        lang = change.value;
        t = translator(lang);
      }
      saved = change.field === 'tz' ? zoneSavedText(change.value, t, now) : t('setting_saved');
    }
  };
}
