/**
 * The bot's i18n: message catalogs per language, `{name}` placeholders, HTML escaping of every
 * interpolated value unless it is marked as trusted markup with `html()`, and plural forms:
 * `{n#form|form…}` picks the word for the number in `n` by the language's plural rules (English:
 * one|other; Russian: one|few|many, so "1 возможность, 2 возможности, 5 возможностей").
 */
import { escapeHtml } from '../lib/html.js';
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


function render(value: string | number | Html): string {
  if (value instanceof Html) return value.value;
  return escapeHtml(String(value));
}

/** The order in which each language writes its plural forms in `{n#…}`. */
const PLURAL_ORDER: Record<Lang, readonly Intl.LDMLPluralRule[]> = {
  en: ['one', 'other'],
  // Russian fractions ("1,5") are "other" and read like "few" (1,5 минуты).
  ru: ['one', 'few', 'many'],
};
const pluralRules: Record<Lang, Intl.PluralRules> = { en: new Intl.PluralRules('en'), ru: new Intl.PluralRules('ru') };

/** The form of `forms` (in the language's order) that goes with `n`. */
export function pluralForm(lang: Lang, n: number, forms: readonly string[]): string {
  const category = pluralRules[lang].select(n);
  const order = PLURAL_ORDER[lang];
  const index = order.indexOf(category);
  const fallback = lang === 'ru' ? 1 : order.length - 1;
  return forms[index >= 0 ? index : fallback] ?? forms[forms.length - 1] ?? '';
}

/** A `t` function for one language. Unknown placeholders stay visible, so a gap shows in tests. */
export function translator(lang: Lang): Translate {
  const catalog = catalogs[lang];
  return (key, vars) => {
    const template = catalog[key];
    if (!vars) return template;
    return template
      .replace(/\{(\w+)#([^}]*)\}/g, (whole, name: string, forms: string) => {
        const value = vars[name];
        const n = typeof value === 'number' ? value : Number(value instanceof Html ? value.value : value);
        return value === undefined || !Number.isFinite(n) ? whole : escapeHtml(pluralForm(lang, Math.abs(n), forms.split('|')));
      })
      .replace(/\{(\w+)\}/g, (whole, name: string) => {
        const value = vars[name];
        return value === undefined ? whole : render(value);
      });
  };
}

/** The first guess from Telegram's `language_code`: Russian for ru*, else English. */
export function pickLang(languageCode: string | undefined): Lang {
  return languageCode?.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}
