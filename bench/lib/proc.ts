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

/**
 * How often the process's main thread (its event loop) blocked and woke again: its voluntary context
 * switches. Each wake costs the kernel's and V8's way in and out besides the work it brings, so
 * wakes a read say how well a process batches its work. NaN when unreadable.
 */
export function wakes(pid: number): number {
  try {
    const m = /^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Read and write system calls (sockets and files, all threads) the process made so far (/proc/<pid>/io); NaN when unreadable. */
export function ioCalls(pid: number): number {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(io)?.[1] ?? Number.NaN);
    return field('syscr') + field('syscw');
  } catch {
    return Number.NaN;
  }
}

/** A memory line of /proc/<pid>/status (VmHWM, VmRSS), bytes; NaN when unreadable. */
function statusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The process's peak resident memory so far (VmHWM), bytes. */
export const peakRssBytes = (pid: number): number => statusBytes(pid, 'VmHWM');

/** The process's resident memory now (VmRSS), bytes. */
export const rssBytes = (pid: number): number => statusBytes(pid, 'VmRSS');
