import { describe, expect, it } from 'vitest';
import { classifyFailure, isLocalRefusal, tokenAttempt, type FailureContext } from '../../src/scheduler/read-outcome.js';
import { ServiceError } from '../../src/service/errors.js';

const ctx = (over: Partial<FailureContext> = {}): FailureContext => ({
  failures: 0,
  floorMs: 0,
  backoffBaseMs: 5_000,
  backoffMaxMs: 300_000,
  random: () => 0,
  ...over,
});

const localRefusal = (retryAfterMs?: number) =>
  new ServiceError('rate_limited', 'no room', { local: true, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });

describe('classifyFailure', () => {
  it('defers a read the local limiter refused, when it says there is room, never sooner than 50 ms', () => {
    expect(classifyFailure(localRefusal(2_000), ctx())).toEqual({ kind: 'defer', waitMs: 2_000, retryAfterMs: 2_000 });
    expect(classifyFailure(localRefusal(10), ctx())).toEqual({ kind: 'defer', waitMs: 50, retryAfterMs: 10 });
    expect(classifyFailure(localRefusal(), ctx())).toEqual({ kind: 'defer', waitMs: 1_000, retryAfterMs: undefined });
  });

  it('pauses on 401 and 403: only the user can fix those', () => {
    expect(classifyFailure(new ServiceError('auth', 'refused', { status: 401 }), ctx())).toEqual({ kind: 'pause', reason: 'auth' });
    expect(classifyFailure(new ServiceError('forbidden', 'no access', { status: 403 }), ctx())).toEqual({ kind: 'pause', reason: 'forbidden' });
  });

  it('makes the whole scope wait on the service’s 429, for Retry-After or else the first backoff', () => {
    expect(classifyFailure(new ServiceError('rate_limited', '429', { status: 429, retryAfterMs: 42_000 }), ctx())).toEqual({ kind: 'scope-wait', waitMs: 42_000 });
    expect(classifyFailure(new ServiceError('rate_limited', '429', { status: 429 }), ctx())).toEqual({ kind: 'scope-wait', waitMs: 5_000 });
  });

  it('backs off anything else, doubling per failure in a row, jittered ±25 %, capped', () => {
    const server = new ServiceError('server', '502', { status: 502 });
    expect(classifyFailure(server, ctx())).toEqual({ kind: 'backoff', errorKind: 'server', failures: 1, waitMs: 3_750, unexpected: false });
    expect(classifyFailure(server, ctx({ failures: 2, random: () => 0.5 }))).toMatchObject({ failures: 3, waitMs: 20_000 });
    // The cap holds whatever the run of failures.
    const capped = classifyFailure(server, ctx({ failures: 40, random: () => 0.999 }));
    expect(capped).toMatchObject({ kind: 'backoff', failures: 41 });
    expect(capped.kind === 'backoff' && capped.waitMs).toBeLessThanOrEqual(300_000);
    expect(capped.kind === 'backoff' && capped.waitMs).toBeGreaterThan(299_000);
  });

  it('never retries sooner than the poll floor', () => {
    expect(classifyFailure(new ServiceError('timeout', 'slow'), ctx({ floorMs: 60_000 }))).toMatchObject({ kind: 'backoff', waitMs: 60_000 });
  });

  it('treats a surprise that is no service error as malformed, and says it was unexpected', () => {
    expect(classifyFailure(new TypeError('boom'), ctx())).toEqual({ kind: 'backoff', errorKind: 'malformed', failures: 1, waitMs: 3_750, unexpected: true });
  });

  it('draws jitter only for a backoff', () => {
    let draws = 0;
    const random = () => {
      draws += 1;
      return 0;
    };
    classifyFailure(localRefusal(100), ctx({ random }));
    classifyFailure(new ServiceError('auth', 'x'), ctx({ random }));
    classifyFailure(new ServiceError('rate_limited', '429', { status: 429 }), ctx({ random }));
    expect(draws).toBe(0);
    classifyFailure(new ServiceError('server', 'x'), ctx({ random }));
    expect(draws).toBe(1);
  });
});

describe('tokenAttempt', () => {
  it('keeps the request when none was carried or a token came of it', () => {
    expect(tokenAttempt(new ServiceError('server', 'x'), false, false)).toBe('kept');
    expect(tokenAttempt(new ServiceError('server', 'x'), true, true)).toBe('kept');
  });

  it('lets the window try again when a request went out but no token came of it', () => {
    expect(tokenAttempt(new ServiceError('timeout', 'x'), true, false)).toBe('retry');
    expect(tokenAttempt(new ServiceError('rate_limited', '429', { status: 429 }), true, false)).toBe('retry');
  });

  it('takes the request back when the limiter refused it before sending', () => {
    expect(tokenAttempt(localRefusal(500), true, false)).toBe('unsent');
    expect(isLocalRefusal(localRefusal())).toBe(true);
    expect(isLocalRefusal(new ServiceError('rate_limited', '429', { status: 429 }))).toBe(false);
  });
});
