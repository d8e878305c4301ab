/**
 * The rooms kept in order: no file in src/ or bench/ over 400 lines unless its first line says why
 * (a comment starting "Over 400 lines"), no import circle between the files of src/, type-only
 * imports included (a circle of types is still a knot a reader has to untie), and none between its
 * rooms (the folders of src/, each top-level file a room of its own): a room that imports from a
 * room importing it — as the outbox once did from health/ — has no place in the layers.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_LINES = 400;

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...tsFiles(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The relative imports of each file, as paths of .ts files. */
export function importGraph(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = [...read(file).matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g)].map((m) => normalize(join(dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
    graph.set(file, targets);
  }
  return graph;
}

/** One circle per strongly connected group of files that import each other (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
        onStack.delete(w);
        group.push(w);
      }
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The room of a file: its folder under src/ (`src/outbox/x.ts` → `src/outbox`), or the file itself at the top. */
const roomOf = (file: string): string => {
  const parts = file.split(/[\\/]/);
  return parts.length > 2 ? parts.slice(0, 2).join('/') : file;
};

/** The imports between rooms. */
export function roomGraph(files: Map<string, string[]>): Map<string, string[]> {
  const rooms = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = roomOf(file);
    const into = rooms.get(from) ?? new Set<string>();
    rooms.set(from, into);
    for (const target of targets) if (roomOf(target) !== from) into.add(roomOf(target));
  }
  return new Map([...rooms].map(([room, into]) => [room, [...into]]));
}

describe('layout', () => {
  it(`keeps every file in src/ and bench/ within ${MAX_LINES} lines, or says why on its first line`, () => {
    const over = [...tsFiles('src'), ...tsFiles('bench')].flatMap((file) => {
      const lines = readFileSync(join(root, file), 'utf8').split('\n');
      const length = lines.at(-1) === '' ? lines.length - 1 : lines.length;
      return length > MAX_LINES && !/^\/\/ Over 400 lines\b/.test(lines[0] ?? '') ? [`${file}: ${length} lines`] : [];
    });
    expect(over).toEqual([]);
  });

  it('has no import circle between the files of src/, type-only imports included', () => {
    const files = tsFiles('src');
    expect(circles(importGraph(files, (f) => readFileSync(join(root, f), 'utf8')))).toEqual([]);
  });

  it('has no import circle between the rooms of src/', () => {
    const files = tsFiles('src');
    expect(circles(roomGraph(importGraph(files, (f) => readFileSync(join(root, f), 'utf8'))))).toEqual([]);
  });

  it('finds a circle when there is one (the check itself)', () => {
    const sources: Record<string, string> = {
      'src/bot/context.ts': "import type { BotRuntime } from './deps.js';",
      'src/bot/deps.ts': "import type { RenderedMessages } from './ui/rendered.js';",
      'src/bot/ui/rendered.ts': "import type { BotContext } from '../context.js';",
      'src/bot/bot.ts': "import { x } from './context.js';",
    };
    const graph = importGraph(Object.keys(sources), (f) => sources[f]!);
    expect(circles(graph)).toEqual([['src/bot/context.ts', 'src/bot/deps.ts', 'src/bot/ui/rendered.ts']]);
  });

  it('finds a circle between rooms (the check itself: the outbox importing from health/)', () => {
    const sources: Record<string, string> = {
      'src/outbox/options.ts': "import type { MetricsPort } from '../health/observe.js';",
      'src/health/collect.ts': "import type { OutboxStats } from '../outbox/port.js';",
      'src/health/observe.ts': '',
      'src/outbox/port.ts': '',
    };
    const graph = roomGraph(importGraph(Object.keys(sources), (f) => sources[f]!));
    expect(circles(graph)).toEqual([['src/health', 'src/outbox']]);
  });
});
