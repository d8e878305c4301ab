/** /settings: the menu conversation, or one line: `/settings <lang|tz|bankroll|step|quiet|alerts|currency|loud|loud_rise|stale> <value>`. */
import { Composer } from 'grammy';
import { applySetting, parseChatTarget, parseField, parseSettingValue, resolveAlertTarget, type SettingChange } from '../actions/settings.js';
import type { BotContext } from '../context.js';
import { SETTINGS_CONVERSATION, type SettingsConversationArgs } from '../conversations/settings.js';
import type { BotRuntime } from '../deps.js';
import { clipEcho, type Parsed } from '../parse/values.js';
import { describeSettings, staleDefaultsOf, zoneSavedText } from '../ui/settings-text.js';
import { leaveFlows } from '../flows.js';
import { CURRENCY_WORDS, setCurrency } from './currency-setting.js';

export function settingsFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('settings', async (ctx) => {
    if (!ctx.from) return;
    const text = ctx.match.trim();
    if (text === '') {
      await leaveFlows(rt, ctx, { quiet: true });
      const args: SettingsConversationArgs = { lang: ctx.lang };
      await ctx.conversation.enter(SETTINGS_CONVERSATION, args);
      return;
    }
    const space = text.search(/\s/);
    const fieldWord = space < 0 ? text : text.slice(0, space);
    const value = space < 0 ? '' : text.slice(space + 1).trim();
    if (CURRENCY_WORDS.has(fieldWord.toLowerCase())) return setCurrency(rt, ctx, value);
    const field = parseField(fieldWord);
    if (!field) {
      await ctx.reply(`${ctx.t('unknown_setting', { value: clipEcho(fieldWord) })}\n\n${ctx.t('settings_usage')}`);
      return;
    }
    if (value === '') {
      await ctx.reply(ctx.t('settings_usage'));
      return;
    }
    let change: Parsed<SettingChange>;
    if (field === 'alerts') {
      const target = parseChatTarget(value);
      change = target.ok ? await resolveAlertTarget(ctx.api, ctx.me.id, ctx.from.id, target.value) : target;
    } else {
      change = parseSettingValue(field, value);
    }
    if (!change.ok) {
      await ctx.reply(ctx.t(change.problem.key, change.problem.vars));
      return;
    }
    const updated = applySetting(rt, ctx.from.id, { chatId: ctx.chat.id, lang: ctx.lang }, change.value);
    if (change.value.field === 'lang') ctx.setLang(change.value.value);
    const saved = change.value.field === 'tz' ? zoneSavedText(change.value.value, ctx.t, rt.clock.now()) : ctx.t('setting_saved');
    await ctx.reply(`${saved}\n\n${describeSettings(updated, ctx.t, ctx.lang, rt.clock.now(), staleDefaultsOf(rt.config))}`);
  });

  return composer;
}
