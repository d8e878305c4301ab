/**
 * docs/glossary.md says what /glossary says: every market code the glossary module explains is in
 * the page, with the same words, in English and in Russian (the page's market-code lists are the
 * module's `glossaryMarkdown` output), and every word /glossary explains has an entry of its own
 * on the page. A code added to src/locales/glossary.ts and not to the page fails here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GLOSSARY, glossaryMarkdown } from '../src/locales/glossary.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const page = readFileSync(join(root, 'docs/glossary.md'), 'utf8');

describe('docs/glossary.md', () => {
  for (const lang of ['en', 'ru'] as const) {
    it(`lists every market code /glossary explains in ${lang}, with the same meaning`, () => {
      const codeLines = glossaryMarkdown(lang)
        .split('\n')
        .filter((line) => line.startsWith('- **'));
      const codeTerms = GLOSSARY[lang].flatMap((s) => s.entries.filter((e) => e.codes.length > 0).map((e) => `- **${e.term}** — `));
      expect(codeTerms.length).toBeGreaterThan(0);
      const missing = codeLines.filter((line) => codeTerms.some((t) => line.startsWith(t)) && !page.includes(line));
      expect(missing).toEqual([]);
    });
  }

  it('has an entry for every word /glossary explains', () => {
    const words = GLOSSARY.en.flatMap((s) => s.entries.filter((e) => e.codes.length === 0).map((e) => e.term.split(' · ')[0]!));
    expect(words.length).toBeGreaterThan(0);
    const lower = page.toLowerCase();
    const missing = words.filter((w) => !lower.includes(`**${w.toLowerCase()}`));
    expect(missing).toEqual([]);
  });
});
