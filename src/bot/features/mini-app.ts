/**
 * The Mini App in the chat (issue 34), when MINI_APP_URL is set: each private chat's menu button
 * opens it (setChatMenuButton, in the user's language, set once per process per user and
 * language), and /app answers with a button that opens it: a web_app button in a private chat over
 * https (Telegram allows web_app buttons only there), a plain link otherwise (a group, or the
 * playground's http://127.0.0.1 URL, which a person opens in any browser).
 */
import { Composer } from 'grammy';
import type { InlineKeyboardButton } from 'grammy/types';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';

/** The button that opens the Mini App at `url` in this chat. */
export function miniAppButton(url: string, text: string, privateChat: boolean): InlineKeyboardButton {
  return privateChat && url.startsWith('https://') ? { text, web_app: { url } } : { text, url };
}

/**
 * The row under /pnl, /filters or /books that opens that screen of the Mini App (📊, ⚙️, 📚), or no
 * row while it is off (MINI_APP_URL unset): no button ever mentions an app that is not there.
 */
export function miniAppRow(url: string | undefined, ctx: Pick<BotContext, 't' | 'chat'>, screen: 'ledger' | 'filters' | 'books'): InlineKeyboardButton[][] {
  if (url === undefined) return [];
  const at = new URL(url);
  at.searchParams.set('screen', screen);
  return [[miniAppButton(at.toString(), ctx.t(`miniapp_btn_${screen}`), ctx.chat?.type === 'private')]];
}

export function miniAppFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  const url = rt.config.MINI_APP_URL;
  const menuSet = new Set<string>();

  if (url !== undefined && url.startsWith('https://')) {
    composer.use(async (ctx, next) => {
      const userId = ctx.from?.id;
      if (ctx.chat?.type === 'private' && userId !== undefined && !menuSet.has(`${userId}:${ctx.lang}`)) {
        menuSet.add(`${userId}:${ctx.lang}`);
        try {
          await ctx.api.setChatMenuButton({ chat_id: ctx.chat.id, menu_button: { type: 'web_app', text: ctx.t('miniapp_menu_button'), web_app: { url } } });
        } catch (err) {
          // A refused menu button leaves /app and the chat as they are: worth a line, not a stop.
          menuSet.delete(`${userId}:${ctx.lang}`);
          ctx.log.warn({ err }, 'menu button not set');
        }
      }
      await next();
    });
  }

  composer.command('app', async (ctx) => {
    if (url === undefined) return void (await ctx.reply(ctx.t('miniapp_off')));
    await ctx.reply(ctx.t('miniapp_open_text'), {
      reply_markup: { inline_keyboard: [[miniAppButton(url, ctx.t('miniapp_open_button'), ctx.chat.type === 'private')]] },
    });
  });

  return composer;
}
