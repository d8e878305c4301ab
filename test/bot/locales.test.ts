/** The catalogs: the same keys and placeholders in both languages, valid Telegram HTML, plain button labels; and the small parsers. */
import { describe, expect, it } from 'vitest';
import { commandMenu, leadingCommand } from '../../src/bot/commands.js';
import { maskKey } from '../../src/bot/ui/mask.js';
import { parseChatTarget, parseQuietHours, parseRange } from '../../src/bot/parse/values.js';
import { parseTimeZone } from '../../src/bot/parse/time-zone.js';
import { checkTelegramHtml } from '../../src/fake-telegram/server.js';
import { en, type MessageKey } from '../../src/locales/en.js';
import { html, pickLang, translator } from '../../src/locales/i18n.js';
import { ru } from '../../src/locales/ru.js';

const keys = Object.keys(en) as MessageKey[];
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('catalogs', () => {
  it('Russian has every key, with the same placeholders', () => {
    expect(Object.keys(ru).sort()).toEqual([...keys].sort());
    for (const key of keys) expect(placeholders(ru[key]), key).toEqual(placeholders(en[key]));
  });

  it('every message is valid Telegram HTML once filled, even with hostile values', () => {
    for (const lang of ['en', 'ru'] as const) {
      const t = translator(lang);
      for (const key of keys) {
        const vars = Object.fromEntries(placeholders(en[key]).map((name) => [name, '<b>&"x']));
        const text = t(key, vars);
        expect(checkTelegramHtml(text).ok, `${lang}.${key}: ${text}`).toBe(true);
        expect(text).not.toContain('<b>&"x');
      }
    }
  });

  it('button labels and command descriptions are plain text within limits', () => {
    for (const catalog of [en, ru]) {
      for (const key of keys.filter((k) => /^(btn|set|svc|cmd|all)_/.test(k))) {
        expect(catalog[key], key).not.toMatch(/[<>&]/);
      }
    }
    for (const lang of ['en', 'ru'] as const) {
      for (const c of commandMenu(lang)) {
        expect(c.description.length).toBeLessThanOrEqual(256);
        expect(c.command).toMatch(/^[a-z_]{1,32}$/);
      }
    }
  });

  it('escapes values unless marked as markup; the language guess', () => {
    const t = translator('en');
    expect(t('fb_chosen', { value: '<i>x</i>' })).toBe('✔️ &lt;i&gt;x&lt;/i&gt;');
    expect(t('fb_chosen', { value: html('<i>x</i>') })).toBe('✔️ <i>x</i>');
    expect(pickLang('ru-RU')).toBe('ru');
    expect(pickLang('uk')).toBe('en');
    expect(pickLang(undefined)).toBe('en');
  });
});

describe('small parsers', () => {
  it('ranges, quiet hours, time zones, chat targets, commands, masks', () => {
    const rules = { lowest: -100, highest: 1000, lowKey: 'value_too_low' as const };
    expect(parseRange('-2-5', rules)).toEqual({ ok: true, value: { min: -2, max: 5 } });
    expect(parseRange('1,5..3', rules)).toEqual({ ok: true, value: { min: 1.5, max: 3 } });
    expect(parseRange('1e3', rules).ok).toBe(false);
    expect(parseQuietHours('7:05 - 9:00')).toEqual({ ok: true, value: { from: '07:05', to: '09:00' } });
    expect(parseQuietHours('выкл')).toEqual({ ok: true, value: null });
    expect(parseTimeZone('utc')).toEqual({ ok: true, value: 'UTC' });
    expect(parseChatTarget('@my_channel')).toEqual({ ok: true, value: { kind: 'username', username: '@my_channel' } });
    expect(parseChatTarget('сюда')).toEqual({ ok: true, value: { kind: 'here' } });
    expect(leadingCommand('/Filter@bb_test_bot arbs')).toBe('filter');
    expect(leadingCommand('not /a command')).toBeUndefined();
    expect(maskKey('demo-key')).toBe('demo…key');
    expect(maskKey('abc')).toBe('a…c');
  });
});
