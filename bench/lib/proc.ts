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
