/**
 * Which button a typed number presses in the playground. Alerts arrive every few seconds, so
 * "the newest keyboard" is usually an alert's: a person answering a question with `2` must never
 * press an alert's second button instead. So every message with buttons gets a number of its own
 * (`3`), and its buttons are `3.1`, `3.2`, …; a bare `2` presses button 2 of the open question
 * (the newest keyboard that is not an alert's), and goes as text when that question takes a typed
 * number (a minimum profit of 2 %), or when no question is open. While such a question is open,
 * `1.5` is an answer too, not button 5 of message 1: `#1.5` always presses.
 */
import { callbackKind } from '../bot/callback-data/registry.js';
import { translator, LANGS, type MessageKey } from '../locales/i18n.js';
import type { SentMessage } from '../fake-telegram/types.js';
import { htmlToTerminal, numberButtons, type ButtonRef } from './render.js';

/**
 * Questions whose typed answer is a number (the prompt keys of `askValue` calls that parse one):
 * there a bare number is the answer, and the ready answers are pressed as `3.1`.
 */
const NUMBER_PROMPTS: readonly MessageKey[] = ['fb_profit', 'fb_profit_middles', 'fb_overvalue', 'fb_odds', 'fb_hours', 'ask_bankroll', 'ask_step'];

const plain = (html: string) => htmlToTerminal(html, { ansi: false }).trim();
const NUMBER_PROMPT_TEXTS = LANGS.flatMap((lang) => NUMBER_PROMPTS.map((key) => plain(translator(lang)(key))));

/** How many numbered messages stay pressable (the newest). */
const KEPT = 1_000;

/** A message with buttons as the playground numbered it. */
export interface Keyboard {
  /** Its number in this session (1, 2, …), the `3` of `3.2`. */
  tag: number;
  message: SentMessage;
  buttons: ButtonRef[];
  /** Every button is an alert's (📋 Event, 💰 Other amount, …). */
  alert: boolean;
  /** A question that takes a typed number: bare numbers are answers, not presses. */
  takesNumber: boolean;
}

export type Route =
  | { kind: 'press'; keyboard: Keyboard; button: ButtonRef }
  /** `3.9` or `3.1` of a message that no longer has that button. */
  | { kind: 'no-button'; tag: number; number: number }
  /** `pressInstead`: the line also names a button (`1.5`), taken as the open question's answer. */
  | { kind: 'text'; pressInstead?: string };

/** What a typed number or range looks like (1.5, 2, 1.5-10, -2): an answer to a number question. */
const NUMBERISH = /^[-+]?\d[\d\s.,]*(?:-[-+]?\d[\d\s.,]*)?$/;

export class KeyboardRouter {
  private nextTag = 1;
  private readonly byMessage = new Map<string, Keyboard>();
  private readonly byTag = new Map<number, Keyboard>();
  private openTag: number | undefined;

  /**
   * Records a message the bot sent or edited; returns its keyboard, or undefined when it has no
   * buttons (an edit that took them off closes the question it was).
   */
  shown(message: SentMessage): Keyboard | undefined {
    const key = `${message.chat_id}:${message.message_id}`;
    const buttons = numberButtons(message.reply_markup);
    const known = this.byMessage.get(key);
    if (buttons.length === 0) {
      if (known) {
        known.buttons = [];
        if (this.openTag === known.tag) this.openTag = undefined;
      }
      return undefined;
    }
    const alert = buttons.every((b) => callbackKind(b.callbackData) === 'alert');
    const text = plain(message.text);
    const takesNumber = !alert && NUMBER_PROMPT_TEXTS.some((p) => text.startsWith(p));
    const keyboard: Keyboard = { tag: known?.tag ?? this.nextTag++, message, buttons, alert, takesNumber };
    this.byMessage.set(key, keyboard);
    this.byTag.set(keyboard.tag, keyboard);
    // Bounded for a long session (an alert every few seconds): the oldest numbers are long off the screen.
    const oldest = this.byTag.get(keyboard.tag - KEPT);
    if (oldest && oldest.tag !== this.openTag) {
      this.byTag.delete(oldest.tag);
      this.byMessage.delete(`${oldest.message.chat_id}:${oldest.message.message_id}`);
    }
    // A new or redrawn question is what the person is answering; an alert never is.
    if (!alert) this.openTag = keyboard.tag;
    return keyboard;
  }

  /** The number a message with buttons was given, if it ever had buttons. */
  tagOf(message: SentMessage): number | undefined {
    return this.byMessage.get(`${message.chat_id}:${message.message_id}`)?.tag;
  }

  /** The question bare numbers answer, if one is open. */
  get open(): Keyboard | undefined {
    return this.openTag === undefined ? undefined : this.byTag.get(this.openTag);
  }

  /** Whether the keyboard's buttons are printed (and typed) bare, `2`, rather than `3.2`. */
  bare(keyboard: Keyboard): boolean {
    return this.openTag === keyboard.tag && !keyboard.takesNumber;
  }

  /** What a typed line does. */
  route(line: string): Route {
    const explicit = line.startsWith('#');
    const full = /^#?(\d{1,4})\.(\d{1,2})$/.exec(line);
    const open = this.open;
    if (!explicit && open?.takesNumber && NUMBERISH.test(line)) {
      const named = full && this.byTag.get(Number(full[1]))?.buttons.some((b) => b.number === Number(full[2]));
      return named ? { kind: 'text', pressInstead: `#${line}` } : { kind: 'text' };
    }
    if (full) {
      const tag = Number(full[1]);
      const number = Number(full[2]);
      const keyboard = this.byTag.get(tag);
      const button = keyboard?.buttons.find((b) => b.number === number);
      return keyboard && button ? { kind: 'press', keyboard, button } : { kind: 'no-button', tag, number };
    }
    if (/^\d{1,2}$/.test(line) && open && !open.takesNumber) {
      const button = open.buttons.find((b) => b.number === Number(line));
      if (button) return { kind: 'press', keyboard: open, button };
    }
    return { kind: 'text' };
  }

  /**
   * The person did something else: a command starts afresh (its answer brings its own question),
   * and pressing an alert's button leaves the question (what follows answers the alert).
   */
  acted(what: { command: true } | { pressed: Keyboard }): void {
    if ('command' in what || what.pressed.alert) this.openTag = undefined;
  }
}
