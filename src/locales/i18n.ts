/**
 * The bot's i18n: message catalogs per language, `{name}` placeholders, and HTML escaping of
 * every interpolated value unless it is marked as trusted markup with `html()`.
 */
import { en, type MessageKey } from './en.js';
import { ru } from './ru.js';

export type { MessageKey };
export type Lang = 'en' | 'ru';
export const LANGS: readonly Lang[] = ['en', 'ru'];

/** Markup built by the bot itself (already escaped), passed through `t` unchanged. */
export class Html {
  constructor(readonly value: string) {}
}

/** Marks already-escaped markup so that `t` does not escape it again. */
export const html = (value: string): Html => new Html(value);

export type Vars = Record<string, string | number | Html>;
/** Looks up a message in one language and fills its placeholders. */
export type Translate = (key: MessageKey, vars?: Vars) => string;

const catalogs: Record<Lang, Record<MessageKey, string>> = { en, ru };

/** Escapes text for Telegram's HTML parse mode. */
export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function render(value: string | number | Html): string {
  if (value instanceof Html) return value.value;
  return escapeText(String(value));
}

/** A `t` function for one language. Unknown placeholders stay visible, so a gap shows in tests. */
export function translator(lang: Lang): Translate {
  const catalog = catalogs[lang];
  return (key, vars) => {
    const template = catalog[key];
    if (!vars) return template;
    return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
      const value = vars[name];
      return value === undefined ? whole : render(value);
    });
  };
}

/** The first guess from Telegram's `language_code`: Russian for ru*, else English. */
export function pickLang(languageCode: string | undefined): Lang {
  return languageCode?.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}
