/**
 * A leg's market as a spreadsheet wants it: the code without its line ("AH1"), the line apart
 * ("-1.5"), and the selection in words ("team 1 handicap -1.5"), read back from the market text
 * the alert printed ("AH1(-1.5)", "Lay TO(197.5)"). The words are English like the CSV's column
 * names; a code the table does not know is its own selection, so nothing is ever left blank. A
 * lay leg's "Lay " prefix is dropped here: the CSV says lay once, in its `side` column.
 */

export interface Selection {
  /** The market code without the line or a "Lay " prefix. */
  code: string;
  /** The line ("-1.5", "197.5"); '' for a market without one. */
  line: string;
  /** What was bet on, in words. */
  words: string;
}

/** Code → words; `{line}` stands for the line. */
const WORDS: Readonly<Record<string, string>> = {
  '1': 'home win',
  X: 'draw',
  '2': 'away win',
  '1X': 'home win or draw',
  X2: 'away win or draw',
  '12': 'home or away win',
  W1: 'team 1 wins',
  W2: 'team 2 wins',
  AH1: 'team 1 handicap {line}',
  AH2: 'team 2 handicap {line}',
  H1: 'team 1 handicap {line}',
  H2: 'team 2 handicap {line}',
  TO: 'total over {line}',
  TU: 'total under {line}',
  ITO1: 'team 1 total over {line}',
  ITU1: 'team 1 total under {line}',
  ITO2: 'team 2 total over {line}',
  ITU2: 'team 2 total under {line}',
  'BTS: yes': 'both teams score',
  'BTS: no': 'not both teams score',
  Odd: 'odd total',
  Even: 'even total',
};

/** The market text split into code, line and words. */
export function selectionOf(market: string): Selection {
  const bare = market.replace(/^Lay\s+/i, '').trim();
  const m = /^(.*?)\s*\(([^()]*)\)\s*$/.exec(bare);
  const code = (m ? m[1]! : bare).trim();
  const line = m ? m[2]!.trim().replace(/^\u2212/, '-') : '';
  const template = WORDS[code];
  const words = template === undefined ? (line ? `${code} ${line}` : code) : template.includes('{line}') ? template.replace('{line}', line).trim() : template;
  return { code, line, words };
}
