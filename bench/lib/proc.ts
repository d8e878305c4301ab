/**
 * Another process's CPU time and peak memory, read from outside through /proc (Linux), so a
 * benchmark measures the bot as it runs, through no hook inside it. Elsewhere both read NaN.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks a second of /proc/<pid>/stat (USER_HZ: 100 on every Linux Node supports). */
const TICKS_PER_SECOND = 100;

/** User + system CPU time the process has used so far, ms. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** The first number on the line `name:` of /proc/<pid>/<file> (status, io), for each name; NaN when unreadable. */
function procFields(pid: number, file: 'status' | 'io', names: readonly string[]): number[] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return names.map(() => Number.NaN);
  }
  return names.map((name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN));
}

/**
 * How often the process's main thread (its event loop) blocked and woke again: its voluntary context
 * switches. Each wake costs the kernel's and V8's way in and out besides the work it brings, so
 * wakes a read say how well a process batches its work. NaN when unreadable.
 */
export const wakes = (pid: number): number => procFields(pid, 'status', ['voluntary_ctxt_switches'])[0]!;

/** Read and write system calls (sockets and files, all threads) the process made so far (/proc/<pid>/io); NaN when unreadable. */
export const ioCalls = (pid: number): number => procFields(pid, 'io', ['syscr', 'syscw']).reduce((a, b) => a + b, 0);

/** The process's peak resident memory so far (VmHWM, kB in /proc), bytes. */
export const peakRssBytes = (pid: number): number => procFields(pid, 'status', ['VmHWM'])[0]! * 1024;

/** The process's resident memory now (VmRSS, kB in /proc), bytes. */
export const rssBytes = (pid: number): number => procFields(pid, 'status', ['VmRSS'])[0]! * 1024;
