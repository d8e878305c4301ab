/** One question inside a conversation: buttons for ready answers, or a typed value checked by `parse`. */
import type { InlineKeyboardButton } from 'grammy/types';
import type { Translate } from '../../locales/i18n.js';
import type { ConvContext } from '../context.js';
import type { Parsed } from '../parse/values.js';
import { btn, closePrompt, keyboard, sendPrompt, strike, waitAnswer, type Convo, type Strikes } from './prompt.js';

export interface ReadyAnswer<T> {
  label: string;
  value: T;
}

/**
 * Asks until a button is pressed or a typed value parses; a bad value gets the reason and the
 * question stays open (nothing changes), up to MAX_INVALID_ANSWERS times. Buttons are laid out `perRow` to a row.
 */
export async function askValue<T>(
  conversation: Convo,
  ctx: ConvContext,
  t: Translate,
  prompt: string,
  buttons: ReadyAnswer<T>[],
  parse: (text: string, ctx: ConvContext) => Parsed<T> | Promise<Parsed<T>>,
  perRow = 3,
): Promise<T> {
  const rows: InlineKeyboardButton[][] = [];
  for (let i = 0; i < buttons.length; i += perRow) {
    rows.push(buttons.slice(i, i + perRow).map((b, j) => btn(b.label, { type: 'choice', index: i + j })));
  }
  const promptId = await sendPrompt(ctx, prompt, rows.length > 0 ? keyboard(rows) : undefined);
  const strikes: Strikes = { count: 0 };
  for (;;) {
    const answer = await waitAnswer(conversation, t, promptId, strikes);
    if (answer.kind === 'button') {
      const chosen = answer.button.type === 'choice' ? buttons[answer.button.index] : undefined;
      if (!chosen) continue;
      await closePrompt(answer.ctx, promptId);
      await answer.ctx.reply(t('fb_chosen', { value: chosen.label }));
      return chosen.value;
    }
    const parsed = await parse(answer.text, answer.ctx);
    if (parsed.ok) {
      await closePrompt(answer.ctx, promptId);
      return parsed.value;
    }
    await answer.ctx.reply(`${t(parsed.problem.key, parsed.problem.vars)}\n${t('fb_try_again')}`);
    await strike(conversation, answer.ctx, t, strikes);
  }
}
