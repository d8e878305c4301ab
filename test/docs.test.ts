/**
 * The docs kept true to the code: every relative link in README.md, CONTRIBUTING.md and docs/
 * points at a file (and a heading) that exists, every page of docs/ is linked from the README,
 * every variable the code in src/ and bench/ reads from the environment is in docs/settings.md and
 * .env.example (as a setting or a commented line), and every command the bot registers is in the
 * README's commands table. The lists are read from the code, so a new setting or command that
 * nobody documented fails here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KNOWN_COMMANDS } from '../src/bot/commands.js';
import { clusterSettingNames } from '../src/cluster/cluster-run.js';
import { configNames } from '../src/config.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...filesUnder(path, ext));
    else if (name.endsWith(ext)) out.push(path);
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation but `_` and `-` dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
    if (!m) continue;
    const slug = headingSlug(m[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Markdown links outside code: [text](target). */
export function linksOf(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** A helper `f(name: string, …)` whose body reads `process.env[name]`: its calls name variables. */
function envHelpers(sources: Map<string, string>): Set<string> {
  const helpers = new Set<string>();
  for (const text of sources.values()) {
    for (const m of text.matchAll(/(?:function\s+(\w+)\s*\(|const\s+(\w+)\s*=\s*\()\s*name\s*:\s*string/g)) {
      const body = text.slice(m.index, m.index + 400);
      if (body.includes('process.env[name]')) helpers.add((m[1] ?? m[2])!);
    }
  }
  return helpers;
}

/** Every environment variable the code in src/ and bench/ reads, found in the code itself. */
export function envNamesRead(sources: Map<string, string>): Set<string> {
  const names = new Set<string>([...configNames, ...clusterSettingNames]);
  const helpers = [...envHelpers(sources)];
  for (const text of sources.values()) {
    // process.env.NAME, and env.NAME on a copy of the environment handed around.
    for (const m of text.matchAll(/\b(?:process\.)?env\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]!);
    // process.env[CONSTANT] with `const CONSTANT = 'NAME'` in the same file.
    for (const m of text.matchAll(/process\.env\[([A-Z][A-Z0-9_]*)\]/g)) {
      const value = new RegExp(`const ${m[1]!}\\s*=\\s*'([A-Z][A-Z0-9_]*)'`).exec(text);
      if (value) names.add(value[1]!);
    }
    // process.env[name] inside a helper: the names its callers pass.
    for (const helper of helpers) {
      for (const m of text.matchAll(new RegExp(`\\b${helper}\\(\\s*'([A-Z][A-Z0-9_]*)'`, 'g'))) names.add(m[1]!);
    }
    // A variable handed to a child process it reads back: { NAME: … } in runBenchProcess(…).
    for (const m of text.matchAll(/runBenchProcess\([^;]*?\{\s*(?:\.\.\.\w+\(\),\s*)?([A-Z][A-Z0-9_]*):/g)) names.add(m[1]!);
  }
  // The system's own, passed on to child processes: not a setting of this project.
  names.delete('PATH');
  return names;
}

/** Commands the bot registers: the menu and /stats (KNOWN_COMMANDS) and every .command('…') in src/bot/. */
export function commandsRegistered(sources: Map<string, string>): Set<string> {
  const commands = new Set<string>(KNOWN_COMMANDS);
  for (const [file, text] of sources) {
    if (!file.startsWith('src/bot/')) continue;
    for (const m of text.matchAll(/\.command\(\s*(\[[^\]]*\]|'[^']*')/g)) {
      for (const name of m[1]!.matchAll(/'([^']+)'/g)) commands.add(name[1]!);
    }
  }
  return commands;
}

const sources = new Map(
  [...filesUnder('src', '.ts'), ...filesUnder('bench', '.ts')].map((file) => [file.split('\\').join('/'), read(file)] as const),
);
const pages = ['README.md', 'CONTRIBUTING.md', ...filesUnder('docs', '.md')];

describe('docs', () => {
  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of linksOf(read(page))) {
        if (/^(https?:|mailto:)/.test(link)) continue;
        const [path = '', anchor] = link.split('#');
        const target = path === '' ? page : relative(root, resolve(root, dirname(page), path));
        if (!existsSync(join(root, target))) {
          broken.push(`${page}: ${link} (no file ${target})`);
          continue;
        }
        if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(read(target)).has(anchor)) {
          broken.push(`${page}: ${link} (no heading #${anchor} in ${target})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('links every page of docs/ from the README', () => {
    const linked = new Set(linksOf(read('README.md')).map((l) => l.split('#')[0]));
    const missing = filesUnder('docs', '.md').filter((page) => !linked.has(page.split('\\').join('/')));
    expect(missing).toEqual([]);
  });

  it('finds the environment variables read through each way the code reads them', () => {
    const names = envNamesRead(sources);
    // One of each way: config.ts, npm run cluster, process.env.X, a helper, a constant, a child's.
    for (const name of ['BOT_TOKEN', 'WORKERS', 'DOCTOR_SECRET_KEY', 'SANDBOX_SEED', 'BENCH_BUSY_SEED', 'BENCH_RESULT_FILE', 'BENCH_BUSY_SCENARIO']) {
      expect(names, name).toContain(name);
    }
  });

  it('documents every environment variable the code reads in docs/settings.md and .env.example', () => {
    const settings = read('docs/settings.md');
    const example = read('.env.example').split('\n');
    const missing: string[] = [];
    for (const name of envNamesRead(sources)) {
      if (!settings.includes(`\`${name}\``)) missing.push(`${name}: not in docs/settings.md`);
      const line = example.findIndex((l) => l.startsWith(`${name}=`) || l.startsWith(`# ${name}=`));
      if (line < 0) missing.push(`${name}: not in .env.example (a line "${name}=" or "# ${name}=")`);
      else if (!/^# \S/.test(example[line - 1] ?? '') || /^# [A-Z][A-Z0-9_]*=/.test(example[line - 1]!)) {
        missing.push(`${name}: no line of meaning above it in .env.example`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("lists every command the bot registers in the README's commands table", () => {
    const readme = read('README.md');
    const section = /\n## Commands\n([\s\S]*?)(?=\n## )/.exec(readme)?.[1] ?? '';
    const firstCells = section
      .split('\n')
      .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
      .map((l) => l.split('|')[1] ?? '');
    const listed = new Set(firstCells.flatMap((cell) => [...cell.matchAll(/\/([a-z0-9_]+)/g)].map((m) => m[1]!)));
    const missing = [...commandsRegistered(sources)].filter((c) => !listed.has(c));
    expect(missing).toEqual([]);
  });
});
