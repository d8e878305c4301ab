/**
 * Issue 21 item 8, words: /glossary explains every market code the dictionaries use and the
 * betting words, in English and Russian, and /help leads to it; a paused service reads right; the
 * builder's order of sports is tested in filter-input.test.ts; Russian counts take their forms.
 */
import { describe, expect, it } from 'vitest';
import { checkTelegramHtml } from '../../src/fake-telegram/server.js';
import { findInGlossary, GLOSSARY, glossaryMarkdown, glossaryMessages } from '../../src/locales/glossary.js';
import { translator } from '../../src/locales/i18n.js';
import { DICT_LANGS, dictionariesFor } from '../../src/sandbox/dictionaries.js';
import { ALICE, BORIS, type Harness, withConnectedHarness } from './harness.js';

describe('the glossary', () => {
  it('has an entry for every market code the dictionaries serve, in both languages', () => {
    for (const lang of DICT_LANGS) {
      const codes = new Set(GLOSSARY[lang].flatMap((s) => s.entries.flatMap((e) => e.codes)));
      for (const type of Object.values(dictionariesFor(lang).odds_types)) {
        expect(codes.has(type.title_short), `${lang}: ${type.title_short}`).toBe(true);
      }
    }
  });

  it('explains the words the bot uses, fits Telegram, and reads as Markdown for the docs', () => {
    const en = glossaryMessages('en').join('\n');
    for (const word of ['Arb', 'Middle', 'Valuebet', 'Yield', 'CLV', 'Break-even odds', 'Kelly']) expect(en).toContain(`<b>${word}`);
    const ru = glossaryMessages('ru').join('\n');
    for (const word of ['Вилка', 'Коридор', 'Валуйная ставка', 'Yield', 'CLV']) expect(ru).toContain(`<b>${word}`);
    for (const lang of DICT_LANGS) {
      for (const message of glossaryMessages(lang)) {
        expect(message.length).toBeLessThanOrEqual(4096);
        expect(checkTelegramHtml(message).ok).toBe(true);
      }
      expect(glossaryMarkdown(lang)).toMatch(/^## /);
    }
  });

  it('finds an entry by a code as an alert prints it, with its line', () => {
    expect(findInGlossary('en', 'ITO1(0.5)').map((e) => e.term)).toEqual(['ITO1(x) · ITU1(x) · ITO2(x) · ITU2(x)']);
    expect(findInGlossary('en', 'BTS: no').map((e) => e.term)).toEqual(['BTS: yes · BTS: no']);
    expect(findInGlossary('en', 'x2').map((e) => e.term)).toEqual(['1X · X2 · 12']);
    expect(findInGlossary('ru', 'ИТБ1(0.5)').map((e) => e.term)).toEqual(['ИТБ1(x) · ИТМ1(x) · ИТБ2(x) · ИТМ2(x)']);
    expect(findInGlossary('en', 'poker')).toEqual([]);
  });
});

describe('pronouns follow the count', () => {
  it('one item or filter is "it", several are "them"', () => {
    const en = translator('en');
    expect(en('lookup_unshowable', { n: 1 })).toContain('so it was left out');
    expect(en('lookup_unshowable', { n: 3 })).toContain('so they were left out');
    expect(en('connect_rewrite_failed', { n: 1, list: 'Arbs · live' })).toBe('⚠️ I could not write this filter for the new key: Arbs · live. Open /filters and save it again.');
    expect(en('connect_rewrite_failed', { n: 2, list: 'a, b' })).toContain('these filters for the new key: a, b. Open /filters and save them again.');
    expect(translator('ru')('connect_rewrite_failed', { n: 1, list: 'x' })).toContain('этот фильтр для нового ключа: x. Откройте /filters и сохраните его снова.');
  });
});

describe('Russian counts', () => {
  it('take the form of their number', () => {
    const t = translator('ru');
    expect(t('every_s', { n: 1 })).toBe('каждую 1 с');
    expect(t('every_s', { n: 2 })).toBe('каждые 2 с');
    expect(t('every_min', { n: 21 })).toBe('каждую 21 мин');
    expect(t('flow_too_many_invalid', { max: 2 })).toContain('2 ответа,');
  });
});

describe('words in the chat', () => {
  let h: Harness;
  withConnectedHarness((harness) => (h = harness));
  const last = () => h.last(ALICE.id);

  it('/glossary lists the codes and words; /glossary <code> explains one; anything else is answered', async () => {
    const before = h.sent(ALICE.id).length;
    await h.say(ALICE, '/glossary');
    const texts = h.sent(ALICE.id).slice(before).map((m) => m.text);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain('<b>ITO1(x) · ITU1(x) · ITO2(x) · ITU2(x)</b>');
    expect(texts[1]).toContain('<b>CLV</b>');
    await h.say(ALICE, '/glossary ITO1(0.5)');
    expect(last().text).toMatch(/^<b>ITO1\(x\)[^\n]*team 1 \(or 2\) alone/);
    await h.say(ALICE, '/glossary <b>poker');
    expect(last().text).toBe('The glossary has nothing for “&lt;b&gt;poker”. /glossary lists every market code and word.');
    await h.say(BORIS, '/glossary ОЗ: нет');
    expect(h.last(BORIS.id).text).toContain('обе забьют');
  });

  it('/help leads to /glossary', async () => {
    await h.say(ALICE, '/help');
    expect(last().text).toContain('\n/glossary — What the market codes');
  });

  it('a paused service is "it", several are "them"', async () => {
    await h.say(ALICE, '/pause arbs_prematch');
    expect(last().text).toBe('⏸ Paused: Arbs · prematch. /resume turns it back on.');
    await h.say(ALICE, '/filter arbs_live');
    await h.say(ALICE, '/pause');
    expect(last().text).toBe('⏸ Paused: Arbs · prematch, Arbs · live. /resume turns them back on.');
  });
});
