import { describe, expect, it } from 'vitest';
import { formatButtons, htmlToTerminal, numberButtons } from '../../src/playground/render.js';

describe('playground rendering', () => {
  it('turns Telegram HTML into plain text and decodes entities', () => {
    const html = '<b>Arb 2.35%</b> · <i>Tennis</i>\nA &amp; B &lt;x&gt; <a href="https://t.me">link</a> <s>old</s>';
    expect(htmlToTerminal(html, { ansi: false })).toBe('Arb 2.35% · Tennis\nA & B <x> link (https://t.me) old');
  });

  it('styles with ANSI codes on a terminal', () => {
    expect(htmlToTerminal('<b>x</b>', { ansi: true })).toBe('\x1b[1mx\x1b[22m');
  });

  it('numbers callback buttons in reading order and lays them out by row', () => {
    const markup = {
      inline_keyboard: [
        [{ text: 'Site', url: 'https://x' }, { text: 'Pause', callback_data: 'p' }, { text: 'Edit', callback_data: 'e' }],
        [{ text: 'Site', url: 'https://x' }, { text: 'Delete', callback_data: 'd' }],
      ],
    };
    const buttons = numberButtons(markup);
    expect(buttons.map((b) => [b.number, b.text, b.callbackData])).toEqual([
      [1, 'Pause', 'p'],
      [2, 'Edit', 'e'],
      [3, 'Delete', 'd'],
    ]);
    expect(formatButtons(markup)).toBe('  [1 Pause] [2 Edit]\n  [3 Delete]');
    expect(numberButtons(undefined)).toEqual([]);
    expect(numberButtons({ inline_keyboard: 'x' })).toEqual([]);
  });
});
