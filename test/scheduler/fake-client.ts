/**
 * A ServiceClient stand-in for the scheduler's unit tests: tokens that live 5 minutes on the
 * ManualClock (renewed TOKEN_RENEW_MARGIN_MS early, like the real client), a per-key token count over a sliding
 * hour, reads answered from a script, and a record of every call.
 */
import type { Clock } from '../../src/clock.js';
import type { AccessKeyRef, BudgetView, RequestOptions, ServiceClient } from '../../src/service/client-types.js';
import { ServiceError } from '../../src/service/errors.js';
import type { ItemsRead, Opportunity } from '../../src/service/opportunity.js';
import type { Service } from '../../src/service/services.js';
import { TOKEN_RENEW_MARGIN_MS } from '../../src/service/tokens.js';

export interface ReadCall {
  at: number;
  accessKey: string;
  service: Service;
  tokenRequested: boolean;
  opts: RequestOptions | undefined;
}

/** What a read answers: items, or an error to throw. */
export type Script = (call: ReadCall) => Opportunity[] | ServiceError;

export class FakeClient implements ServiceClient {
  readonly reads: ReadCall[] = [];
  readonly tokenRequests: { at: number; accessKey: string; service: Service }[] = [];
  readonly secretsRevealed: string[] = [];
  /** How long the limiter behind this client counts a read (undefined: the in-process default). */
  itemWindowMs: number | undefined;
  private readonly tokens = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    public script: Script = () => [],
    private readonly tokenTtlMs = 300_000,
    private readonly tokensPerHour = 20,
  ) {}

  private tokensUsed(accessKey: string): number {
    const since = this.clock.now() - 3_600_000;
    return this.tokenRequests.filter((t) => t.accessKey === accessKey && t.at > since).length;
  }

  hasValidToken(accessKey: string, service: Service): boolean {
    const expiresAt = this.tokens.get(`${accessKey}|${service}`);
    return expiresAt !== undefined && this.clock.now() < expiresAt - TOKEN_RENEW_MARGIN_MS;
  }

  budget(accessKey: string, service: Service): BudgetView {
    const expiresAt = this.tokens.get(`${accessKey}|${service}`) ?? 0;
    return {
      tokensLeft: this.tokensPerHour - this.tokensUsed(accessKey),
      readsLeft: 30,
      tokenExpiresInMs: Math.max(0, expiresAt - this.clock.now()),
      pausedForMs: 0,
    };
  }

  async readItems(key: AccessKeyRef, service: Service, opts?: RequestOptions): Promise<ItemsRead> {
    const now = this.clock.now();
    const tokenRequested = !this.hasValidToken(key.accessKey, service);
    if (tokenRequested) {
      if (this.tokensUsed(key.accessKey) >= this.tokensPerHour) {
        throw new ServiceError('rate_limited', 'token limit', { local: true, retryAfterMs: 60_000 });
      }
      this.secretsRevealed.push(key.revealSecret());
      this.tokenRequests.push({ at: now, accessKey: key.accessKey, service });
      this.tokens.set(`${key.accessKey}|${service}`, now + this.tokenTtlMs);
    }
    const call: ReadCall = { at: now, accessKey: key.accessKey, service, tokenRequested, opts };
    this.reads.push(call);
    await Promise.resolve();
    const answer = this.script(call);
    if (answer instanceof ServiceError) throw answer;
    // As the service (and the sandbox) answers: the envelope says whether the odds are masked.
    return { items: answer, masked: false, maskStated: true, timestamp: now, skipped: 0 };
  }

  readsOf(accessKey: string, service?: Service): ReadCall[] {
    return this.reads.filter((r) => r.accessKey === accessKey && (service === undefined || r.service === service));
  }

  async checkKey(): Promise<void> {}
  async writeFilter(): Promise<void> {}
  async readEventItems(): Promise<ItemsRead> {
    throw new ServiceError('not_found', 'not in the fake');
  }
  async readItem(): Promise<Opportunity> {
    throw new ServiceError('not_found', 'not in the fake');
  }
  async dictionaries(): Promise<undefined> {
    return undefined;
  }
  cachedDictionaries(): undefined {
    return undefined;
  }
  forgetKey(accessKey: string): void {
    for (const k of [...this.tokens.keys()]) if (k.startsWith(`${accessKey}|`)) this.tokens.delete(k);
  }
  async close(): Promise<void> {}
}
