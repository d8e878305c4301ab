/**
 * No Docker engine runs on the CI machine, so the image's promises are checked as text: a
 * multi-stage build on an LTS slim image, production dependencies only, a non-root user, the data
 * volume, a health check, the heap limits `npm start` uses, the malloc arena cap, and an exec-form CMD so SIGTERM
 * reaches node itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { botEnv, botNodeFlags } from '../bench/lib/result.js';

const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
const ignore = readFileSync(new URL('../.dockerignore', import.meta.url), 'utf8').split('\n');
const lines = dockerfile.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
const final = lines.slice(lines.findLastIndex((l) => l.startsWith('FROM ')));

describe('Dockerfile', () => {
  it('builds in one stage and runs from another, both on an even-numbered (LTS) slim Node image', () => {
    const froms = lines.filter((l) => l.startsWith('FROM '));
    expect(froms).toHaveLength(2);
    for (const from of froms) expect(from).toMatch(/^FROM node:(2[02468]|[3-9][02468])-[\w-]*slim\b/);
    expect(dockerfile).toMatch(/RUN npm ci\b/);
    expect(dockerfile).toMatch(/RUN npm run build/);
  });

  it('keeps only production dependencies and the build output in the final image', () => {
    expect(final.join('\n')).toMatch(/npm ci --omit=dev/);
    expect(final.join('\n')).toMatch(/COPY --from=build \/app\/dist/);
    expect(final.join('\n')).not.toMatch(/COPY (src|test)\b/);
  });

  it('runs as a non-root user with DATA_DIR on a volume and a health check', () => {
    expect(final.some((l) => /^USER (?!root\b)\w+/.test(l))).toBe(true);
    expect(dockerfile).toMatch(/DATA_DIR=\/data/);
    expect(dockerfile).toMatch(/VOLUME \["\/data"\]/);
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/healthz/);
  });

  it('starts node directly in exec form, so SIGTERM reaches the bot', () => {
    const cmd = final.find((l) => l.startsWith('CMD '));
    expect(cmd).toBe('CMD ["node", "dist/main.js"]');
  });

  it('runs node with the heap limits `npm start` uses, through NODE_OPTIONS so it can be overridden', () => {
    const flags = botNodeFlags();
    expect(flags).toEqual([expect.stringMatching(/^--max-old-space-size=\d+$/), expect.stringMatching(/^--max-semi-space-size=\d+$/)]);
    expect(dockerfile).toMatch(new RegExp(`NODE_OPTIONS="${flags.join(' ')}"(\\s|$)`));
  });

  it('limits glibc to two malloc arenas, the setting the benchmarks run the bot with', () => {
    expect(final.join('\n')).toMatch(/\bMALLOC_ARENA_MAX=2\b/);
    expect(botEnv()).toEqual({ MALLOC_ARENA_MAX: '2' });
  });

  it('keeps secrets, data and local installs out of the build context', () => {
    for (const entry of ['.env', 'data', 'node_modules', '.git']) expect(ignore).toContain(entry);
  });
});

describe('the production build', () => {
  const stand = ['src/sandbox', 'src/fake-telegram', 'src/playground'];

  it('leaves out the sandbox, the Bot API stand-in and the playground', () => {
    const build = JSON.parse(readFileSync(new URL('../tsconfig.build.json', import.meta.url), 'utf8')) as { exclude: string[] };
    for (const dir of stand) expect(build.exclude).toContain(dir);
  });

  it('has no code that imports them, so the build stays whole without them', () => {
    const root = fileURLToPath(new URL('../src', import.meta.url));
    const offenders = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !stand.some((dir) => `src/${f}`.startsWith(`${dir}/`)))
      .filter((f) => /from '(\.\.?\/)+(sandbox|fake-telegram|playground)\//.test(readFileSync(`${root}/${f}`, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
