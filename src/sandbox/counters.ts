/** Request, use, status and breach counters of the sandbox. */
import type { SandboxCounters } from './types.js';

const BREACH_LOG_CAP = 10_000;

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

export class Counters {
  private data: SandboxCounters = Counters.empty();

  private static empty(): SandboxCounters {
    return { requests: {}, byKeyHost: {}, breaches: 0, breachLog: [], status: {} };
  }

  request(route: string): void {
    bump(this.data.requests, route);
  }

  use(who: string, base: string, kind: 'token' | 'filter' | 'items' | 'dicts'): void {
    bump(this.data.byKeyHost, `${who}|${base}|${kind}`);
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
