import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configNames, loadConfig } from '../src/config.js';

const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
const entries = new Map(
  example
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => {
      const i = line.indexOf('=');
      return [line.slice(0, i), line.slice(i + 1)] as const;
    }),
);

describe('.env.example', () => {
  it('lists every setting that src/config.ts reads, and nothing else', () => {
    expect([...entries.keys()].sort()).toEqual([...configNames].sort());
  });

  it('gives each setting a line of meaning above it', () => {
    const lines = example.split('\n');
    for (const name of configNames) {
      const at = lines.findIndex((l) => l.startsWith(`${name}=`));
      expect(lines[at - 1], name).toMatch(/^# /);
    }
  });

  it('holds the defaults the code takes', () => {
    const fromExample = loadConfig(Object.fromEntries(entries));
    expect(fromExample).toEqual(loadConfig({}));
  });
});
