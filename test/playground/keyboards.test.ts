/** Which button a typed number presses in the playground: the open question's, never an alert's. */
import { describe, expect, it } from 'vitest';
import type { SentMessage } from '../../src/fake-telegram/types.js';
import { translator } from '../../src/locales/i18n.js';
import { KeyboardRouter } from '../../src/playground/keyboards.js';

let nextId = 1;
function message(text: string, buttons: string[][], id = nextId++): SentMessage {
  return {
    message_id: id,
    chat_id: 1001,
    text,
    reply_markup: { inline_keyboard: buttons.map((row) => row.map((data) => ({ text: `label ${data}`, callback_data: data }))) },
    edited: false,
    deleted: false,
    history: [],
    at: 0,
  };
}

const menu = () => message('⚙️ <b>Settings</b>', [['cv:f:lang', 'cv:f:tz'], ['cv:done']]);
const alert = () => message('⚖️ Arb +2%', [['a:ev:0:e1'], ['a:stk:0:i1'], ['a:mute:0:e1', 'a:snz:0']]);

describe('KeyboardRouter', () => {
  it('a bare number presses the open question even after an alert came; 3.2 presses the alert', () => {
    const k = new KeyboardRouter();
    const q = k.shown(menu());
    const a = k.shown(alert());
    expect(a?.alert).toBe(true);
    expect(k.bare(q!)).toBe(true);
    expect(k.bare(a!)).toBe(false);
    expect(k.route('2')).toMatchObject({ kind: 'press', keyboard: { tag: q?.tag }, button: { callbackData: 'cv:f:tz' } });
    expect(k.route(`${a?.tag}.2`)).toMatchObject({ kind: 'press', button: { callbackData: 'a:stk:0:i1' } });
    expect(k.route(`${a?.tag}.9`)).toEqual({ kind: 'no-button', tag: a?.tag, number: 9 });
    expect(k.route('9')).toEqual({ kind: 'text' });
  });

  it('a question that takes a number takes typed numbers, decimals and ranges as answers (en and ru)', () => {
    for (const lang of ['en', 'ru'] as const) {
      const k = new KeyboardRouter();
      const a = k.shown(alert());
      const q = k.shown(message(translator(lang)('fb_profit'), [['cv:v:0']]));
      expect(q?.takesNumber).toBe(true);
      expect(k.bare(q!)).toBe(false);
      expect(k.route('1')).toEqual({ kind: 'text' });
      expect(k.route('1.5-10')).toEqual({ kind: 'text' });
      expect(k.route(`${a?.tag}.2`)).toEqual({ kind: 'text', pressInstead: `#${a?.tag}.2` });
      expect(k.route(`#${a?.tag}.2`)).toMatchObject({ kind: 'press', button: { callbackData: 'a:stk:0:i1' } });
      expect(k.route(`${q?.tag}.1`)).toEqual({ kind: 'text', pressInstead: `#${q?.tag}.1` });
      expect(k.route(`#${q?.tag}.1`)).toMatchObject({ kind: 'press', button: { callbackData: 'cv:v:0' } });
    }
    // The language question has ready answers but takes no number: 1 presses.
    const k = new KeyboardRouter();
    k.shown(message(translator('en')('ask_lang'), [['cv:v:0', 'cv:v:1']]));
    expect(k.route('1')).toMatchObject({ kind: 'press', button: { callbackData: 'cv:v:0' } });
  });

  it('the question closes when its buttons go, when a command is typed, or when an alert button is pressed', () => {
    const k = new KeyboardRouter();
    const m = menu();
    k.shown(m);
    k.shown({ ...m, reply_markup: { inline_keyboard: [] }, edited: true });
    expect(k.open).toBeUndefined();
    expect(k.route('1')).toEqual({ kind: 'text' });

    k.shown(menu());
    k.acted({ command: true });
    expect(k.route('1')).toEqual({ kind: 'text' });

    const q = k.shown(menu());
    const a = k.shown(alert());
    k.acted({ pressed: q! });
    expect(k.open?.tag).toBe(q?.tag);
    k.acted({ pressed: a! });
    expect(k.open).toBeUndefined();
    // An edited alert keeps its number and never becomes the question.
    const again = k.shown({ ...a!.message, text: 'moved', edited: true });
    expect(again?.tag).toBe(a?.tag);
    expect(k.open).toBeUndefined();
  });
});

describe('KeyboardRouter over a long session', () => {
  it('keeps the newest thousand numbered messages pressable and forgets older ones', () => {
    const k = new KeyboardRouter();
    const first = k.shown(alert());
    for (let i = 0; i < 1_000; i++) k.shown(alert());
    expect(k.route(`${first?.tag}.1`)).toEqual({ kind: 'no-button', tag: first?.tag, number: 1 });
    expect(k.route(`${(first?.tag ?? 0) + 1}.1`)).toMatchObject({ kind: 'press' });
  });
});
