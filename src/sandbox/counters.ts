/** Request, use, status and breach counters of the sandbox. */
import type { SandboxCounters } from './types.js';

const BREACH_LOG_CAP = 10_000;
const READ_LOG_CAP = 100_000;

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

export class Counters {
  private data: SandboxCounters = Counters.empty();

  private static empty(): SandboxCounters {
    return { requests: {}, byKeyHost: {}, breaches: 0, breachLog: [], readLog: [], status: {} };
  }

  request(route: string): void {
    bump(this.data.requests, route);
  }

  use(who: string, base: string, kind: 'token' | 'filter' | 'items' | 'dicts'): void {
    bump(this.data.byKeyHost, `${who}|${base}|${kind}`);
  }

  read(at: number, accessKey: string, base: string, address: string): void {
    this.data.readLog.push({ at, accessKey, base, address });
    // Dropping from the front in batches keeps a long run's log linear rather than shifting per read.
    if (this.data.readLog.length > READ_LOG_CAP * 1.1) this.data.readLog.splice(0, this.data.readLog.length - READ_LOG_CAP);
  }

  status(code: number | 'timeout'): void {
    bump(this.data.status, String(code));
  }

  breach(at: number, route: string, scope: string): void {
    this.data.breaches++;
    this.data.breachLog.push({ at, route, scope });
    if (this.data.breachLog.length > BREACH_LOG_CAP) this.data.breachLog.shift();
  }

  snapshot(): SandboxCounters {
    return structuredClone(this.data);
  }

  reset(): void {
    this.data = Counters.empty();
  }
}
