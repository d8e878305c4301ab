/**
 * Issue 29 (trial #23, #37): the glossary explains the words an arber meets in alerts (liability,
 * commission, worst case, corridor, EV) and `/glossary EV` finds the EV and overvalue entries
 * first, not "Odd · Even"; Russian writes decimals one way, with a point, as the alerts print odds
 * and lines (a market code is a code: "ТБ(2.5)"), in the catalog, the glossary and its docs page.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { helpList } from '../../src/bot/commands.js';
import { findInGlossary, glossaryMarkdown, glossaryMessages } from '../../src/locales/glossary.js';
import { translator } from '../../src/locales/i18n.js';
import { ru } from '../../src/locales/ru.js';
import { ALICE, BORIS, type Harness, withConnectedHarness } from './harness.js';

let h: Harness;
withConnectedHarness((harness) => (h = harness));

describe('/glossary covers the words of the alerts', () => {
  it.each([
    ['liability', '<b>Liability</b> — what a lay bet can lose: (lay odds − 1) × lay stake.'],
    ['commission', '<b>Commission</b> — what an exchange keeps of your net winnings'],
    ['worst case', '<b>Worst case</b> — what an arb’s stakes make whichever leg wins, after rounding and commission'],
    ['corridor', '<b>Middle · corridor</b> — two bets on different lines'],
    ['Expected value', '<b>EV · overvalue</b> — expected value'],
  ])('/glossary %s', async (word, start) => {
    await h.say(ALICE, `/glossary ${word}`);
    expect(h.last(ALICE.id).text.startsWith(start)).toBe(true);
  });

  it('/glossary EV gives the EV entry, then the valuebet, and not "Odd · Even" or "Break-even odds"', async () => {
    await h.say(ALICE, '/glossary EV');
    const lines = h.last(ALICE.id).text.split('\n');
    expect(lines.map((l) => /^<b>([^<]*)<\/b>/.exec(l)?.[1])).toEqual(['EV · overvalue', 'Valuebet']);
    expect(findInGlossary('en', 'overvalue').map((e) => e.term)).toEqual(['EV · overvalue', 'Valuebet']);
  });

  it('in Russian too', async () => {
    const first = async (q: string) => {
      await h.say(BORIS, `/glossary ${q}`);
      return /^<b>([^<]*)<\/b>/.exec(h.last(BORIS.id).text)?.[1];
    };
    expect(await first('ответственность')).toBe('Ответственность');
    expect(await first('liability')).toBe('Ответственность');
    expect(await first('комиссия')).toBe('Комиссия');
    expect(await first('худший исход')).toBe('Худший исход');
    expect(await first('коридор')).toBe('Коридор · мидл');
    expect(await first('EV')).toBe('EV · перевес');
    expect(findInGlossary('ru', 'EV').map((e) => e.term)).toEqual(['EV · перевес', 'Валуйная ставка']);
  });
});

// A Russian decimal comma: digits, a comma, one or two digits, and no more digits or commas around
// (so "1,5,6" — a list of ids — and "1,000" — a thousands mark in an input example — are not one).
const DECIMAL_COMMA = /(?<![\d,])\d+,\d{1,2}(?![\d,])/g;

describe('Russian decimals: a point, as in the alerts', () => {
  it('no message of the Russian catalog, no glossary entry and no /help line writes a decimal comma', () => {
    const found: string[] = [];
    for (const [key, text] of Object.entries(ru)) for (const m of text.matchAll(DECIMAL_COMMA)) found.push(`ru.${key}: ${m[0]}`);
    const texts = [...glossaryMessages('ru'), glossaryMarkdown('ru'), helpList(translator('ru'))];
    for (const text of texts) for (const m of text.matchAll(DECIMAL_COMMA)) found.push(`${text.slice(0, 30)}…: ${m[0]}`);
    expect(found).toEqual([]);
  });

  it('the docs page’s Russian market codes too', () => {
    const page = readFileSync(new URL('../../docs/glossary.md', import.meta.url), 'utf8');
    const russian = page.slice(page.indexOf('### In Russian'), page.indexOf("## The bot's own words"));
    expect(russian.length).toBeGreaterThan(100);
    expect([...russian.matchAll(DECIMAL_COMMA)].map((m) => m[0])).toEqual([]);
  });

  it('/help and the glossary in Russian show ИТБ1(0.5) as the alerts write lines', async () => {
    await h.say(BORIS, '/help');
    expect(h.last(BORIS.id).text).toContain('ИТБ1(0.5)');
    await h.say(BORIS, '/glossary ИТБ1');
    expect(h.last(BORIS.id).text).toContain('ИТБ1(0.5): первая команда забьёт хотя бы раз');
  });
});
