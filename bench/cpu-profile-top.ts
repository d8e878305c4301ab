/**
 * The top self-time functions of V8 CPU profiles (`node --cpu-prof`, e.g. the bot processes of
 * bench/cluster-scale.ts run with BENCH_CPU_PROF_DIR): for each .cpuprofile given, the share of the
 * sampled time each function spent in itself, and the total by file.
 *
 *   node .bench-build/bench/cpu-profile-top.js <file.cpuprofile>… [--top 25]
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const files = args.filter((a, i) => a.endsWith('.cpuprofile') && i !== topAt + 1);

const shortUrl = (url: string) => url.replace(/^file:\/\/.*?\/(node_modules|src)\//, '$1/').replace(/^node:/, 'node:');

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** The nearest frame of the bot's own code (src/) on the sample's stack: where the time was spent for. */
  const ownCaller = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)?.callFrame;
      if (f && f.url.includes('/src/')) return `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}`;
    }
    return '(outside src/)';
  };
  const byCaller = new Map<string, number>();
  const selfUs = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    total += dt;
    if (frame.functionName === '(idle)') return;
    const key = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
    const f = shortUrl(frame.url) || frame.functionName;
    byFile.set(f, (byFile.get(f) ?? 0) + dt);
    const c = ownCaller(id);
    byCaller.set(c, (byCaller.get(c) ?? 0) + dt);
  });
  const busy = [...selfUs.values()].reduce((s, n) => s + n, 0);
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1)} %`;
  console.log(`\n${basename(file)}: ${(busy / 1e6).toFixed(1)} s busy of ${(total / 1e6).toFixed(1)} s sampled`);
  for (const [k, us] of [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us).padStart(7)}  ${k}`);
  console.log('  by the nearest function of src/ on the stack (inclusive of the libraries it calls):');
  for (const [k, us] of [...byCaller].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us).padStart(7)}  ${k}`);
  console.log('  by file:');
  for (const [k, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${pct(us).padStart(7)}  ${k}`);
}
