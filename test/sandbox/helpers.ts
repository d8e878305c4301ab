/** Shared helpers of the sandbox tests: token requests and authenticated calls over real HTTP. */
import { ManualClock } from '../../src/clock.js';
import { BASE_SETTING } from '../../src/service/paths.js';
import type { Service } from '../../src/service/services.js';
import { startSandbox, type Sandbox, type SandboxKey, type SandboxOptions, type WireEnvelope } from '../../src/sandbox/index.js';


/** Starts sandboxes on a ManualClock and closes them all in `closeAll`. */
export class Harness {
  readonly clock = new ManualClock();
  private readonly open: Sandbox[] = [];

  async start(opts: SandboxOptions = {}): Promise<Sandbox> {
    const sb = await startSandbox({ clock: this.clock, ...opts });
    this.open.push(sb);
    return sb;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((s) => s.close()));
  }
}

export function hostOf(sb: Sandbox, service: Service): string {
  return sb.urls[BASE_SETTING[service]];
}

/** POSTs a token request and returns the raw response. */
export function requestToken(
  sb: Sandbox,
  service: string,
  key: Pick<SandboxKey, 'accessKey' | 'secret'> = sb.demoKey,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  return fetch(`${sb.urls.BB_AUTH_URL}/access_keys/${encodeURIComponent(key.accessKey)}/access_tokens`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `ApiKey ${key.secret}`, ...init.headers },
    body: init.body ?? JSON.stringify({ service }),
  });
}

/** A valid token for (key, service); fails the test otherwise. */
export async function tokenFor(sb: Sandbox, service: Service, key: Pick<SandboxKey, 'accessKey' | 'secret'> = sb.demoKey): Promise<string> {
  const res = await requestToken(sb, service, key);
  if (res.status !== 200) throw new Error(`token request answered ${res.status}`);
  const body = (await res.json()) as { access_token: string };
  return body.access_token;
}

/** A data call with a Bearer token. */
export function call(url: string, token: string | undefined, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(url, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
  });
}

/** Reads the filter's items with form B and returns the envelope. */
export async function readItems(sb: Sandbox, service: Service, token: string, account = 'bb-demo-key'): Promise<WireEnvelope> {
  const res = await call(`${hostOf(sb, service)}/v1/users/${account}/filter/items`, token);
  if (res.status !== 200) throw new Error(`items read answered ${res.status}`);
  return (await res.json()) as WireEnvelope;
}

/** Writes a filter with form A. */
export async function writeFilter(sb: Sandbox, service: Service, token: string, filter: unknown, account = 'bb-demo-key'): Promise<Response> {
  return call(`${hostOf(sb, service)}/filters/${account}`, token, { method: 'POST', body: filter });
}
