/**
 * Reading an alert's printed text back, for the property tests that recompute every number from
 * what a message prints (test/alerts/*.property.test.ts): the HTML taken off, money and
 * percentages parsed as printed, and the dictionaries of their random arbs (back types and a lay).
 */
import { expect } from 'vitest';
import type { Dictionaries } from '../../src/service/dictionaries-model.js';

/** The dictionaries of a test's arbs: these bookmakers, W1 / X / W2 and the lay type LayW1 (id 21). */
export const arbDictionaries = (bookmakers: Record<string, string>, lang: 'en' | 'ru' = 'en'): Dictionaries => ({
  lang,
  bookmakers,
  liveBookmakers: [],
  sports: { '1': 'Football' },
  oddsGroups: {},
  oddsSections: {},
  oddsTypes: {
    '1': { titleShort: 'W1', titleFull: 'W1', lay: false, sectionId: 1 },
    '2': { titleShort: 'X', titleFull: 'X', lay: false, sectionId: 1 },
    '3': { titleShort: 'W2', titleFull: 'W2', lay: false, sectionId: 1 },
    '21': { titleShort: 'LayW1', titleFull: 'Lay W1', lay: true, sectionId: 1 },
  },
  reflections: {},
});

/** The text without the markup alerts use. */
export const unhtml = (html: string): string => html.replace(/<\/?(b|i|s|code)>/g, '').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** "+2.44%", "−4.28%", "0.00%" → number. */
export function pct(text: string): number {
  const m = /^([+−]?)(\d+\.\d{2})%$/.exec(text);
  if (!m) throw new Error(`not a percentage: ${text}`);
  return (m[1] === '−' ? -1 : 1) * Number(m[2]);
}

/** "49", "102.90", "+2.00", "−4.45" → integer cents. */
export function cents(text: string): number {
  const m = /^([+−]?)(\d+)(?:\.(\d{2}))?$/.exec(text);
  if (!m) throw new Error(`not money: ${text}`);
  return (m[1] === '−' ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3] ?? '0'));
}

/** |printed − recomputed| within `tol` (the printed rounding), plus float dust. */
export const near = (printed: number, exact: number, tol: number, what: string): void =>
  expect(Math.abs(printed - exact), `${what}: printed ${printed}, recomputed ${exact}`).toBeLessThanOrEqual(tol + 1e-9);
