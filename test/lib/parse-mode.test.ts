import { describe, expect, it } from 'vitest';
import { htmlByDefault } from '../../src/lib/parse-mode.js';

type Prev = Parameters<ReturnType<typeof htmlByDefault>>[0];

/** Runs one call through the transformer and returns the payload that would reach Telegram. */
async function sent(method: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
  let seen: Record<string, unknown> = {};
  const prev = ((_m: string, p: Record<string, unknown>) => {
    seen = p;
    return Promise.resolve({ ok: true, result: true });
  }) as unknown as Prev;
  await htmlByDefault()(prev, method as never, payload as never);
  return seen;
}

describe('htmlByDefault', () => {
  it('makes HTML the parse mode of messages, edits and captions', async () => {
    expect((await sent('sendMessage', { chat_id: 1, text: '<b>x</b>' })).parse_mode).toBe('HTML');
    expect((await sent('editMessageText', { chat_id: 1, message_id: 2, text: 'x' })).parse_mode).toBe('HTML');
    expect((await sent('editMessageCaption', { chat_id: 1, message_id: 2, caption: 'x' })).parse_mode).toBe('HTML');
  });

  it('keeps a parse mode the call chose', async () => {
    expect((await sent('sendMessage', { chat_id: 1, text: 'x', parse_mode: 'MarkdownV2' })).parse_mode).toBe('MarkdownV2');
  });

  it('leaves methods without a parse mode alone (a toast is never parsed)', async () => {
    expect(await sent('answerCallbackQuery', { callback_query_id: 'q', text: 'x' })).not.toHaveProperty('parse_mode');
    expect(await sent('deleteMessage', { chat_id: 1, message_id: 2 })).not.toHaveProperty('parse_mode');
  });
});
