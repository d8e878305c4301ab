import { describe, expect, it } from 'vitest';
import { packParts } from '../../src/ledger/csv-parts.js';

/** A random CSV body: lines of 1–80 bytes (some multi-byte), cut into random slices. */
function randomCsv(seed: number): { header: string; lines: string[]; slices: Buffer[] } {
  let x = seed;
  const rnd = (n: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
  const header = 'a,b,c\n';
  const lines = Array.from({ length: 1 + rnd(300) }, (_, i) => `${i},${'é'.repeat(rnd(10))}${'x'.repeat(rnd(60))}\n`);
  const body = Buffer.from(lines.join(''), 'utf8');
  const slices = [Buffer.from(header)];
  for (let at = 0; at < body.length; ) {
    // Slices end between lines, as ledgerCsvChunks makes them.
    let end = Math.min(body.length, at + 1 + rnd(900));
    end = body.indexOf(0x0a, end - 1) + 1 || body.length;
    slices.push(body.subarray(at, end));
    at = end;
  }
  return { header, lines, slices };
}

describe('packParts', () => {
  it('keeps every line once and in order, each part headed and within its size, cut only between lines', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const partBytes = 40 + (seed % 7) * 97;
      const { header, lines, slices } = randomCsv(seed);
      const parts = packParts(slices, partBytes).map((p) => p.toString('utf8'));
      const rows: string[] = [];
      for (const part of parts) {
        expect(part.startsWith(header)).toBe(true);
        const body = part.slice(header.length);
        const partLines = body.split(/(?<=\n)/);
        expect(body.endsWith('\n')).toBe(true);
        if (partLines.length > 1) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(partBytes);
        rows.push(...partLines);
      }
      expect(rows).toEqual(lines);
      // As few parts as whole lines allow: no part could have taken the next one's first line.
      for (let i = 0; i + 1 < parts.length; i++) {
        const next = parts[i + 1]!.slice(header.length).split(/(?<=\n)/)[0]!;
        expect(Buffer.byteLength(parts[i]!.slice(header.length)) + Buffer.byteLength(next)).toBeGreaterThan(partBytes);
      }
    }
  });

  it('a line longer than a part goes alone; nothing but the header gives no part', () => {
    const long = `${'y'.repeat(50)}\n`;
    const parts = packParts([Buffer.from('h\n'), Buffer.from(`a\n${long}b\n`)], 10).map((p) => p.toString());
    expect(parts).toEqual(['h\na\n', `h\n${long}`, 'h\nb\n']);
    expect(packParts([Buffer.from('h\n')], 10)).toEqual([]);
  });
});
