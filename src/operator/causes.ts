/**
 * The low-level cause of a failed call in words an operator can act on: errors from fetch,
 * undici and node-fetch nest their system error (ENOTFOUND, ECONNREFUSED, a TLS code) under
 * `cause` or `error`; this digs it out.
 */

const TLS_CODE = /^(CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_TLS|ERR_SSL|EPROTO$)/;

/** The first `code` (a string like ENOTFOUND) found on the error or what it wraps. */
export function errnoCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth++) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string' && code !== '' && !code.startsWith('UND_ERR_SOCKET')) return code;
    const next = (current as { cause?: unknown; error?: unknown }).cause ?? (current as { error?: unknown }).error;
    if (next === current) break;
    current = next;
  }
  return undefined;
}

/** "the name does not resolve (ENOTFOUND)" and the like; a generic phrase when the cause is unknown. */
export function describeNetworkCause(err: unknown): string {
  const code = errnoCode(err);
  if (code === undefined) return 'the connection failed';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name does not resolve (${code})`;
  if (code === 'ECONNREFUSED') return `the connection was refused (${code})`;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ABORT_ERR') return `no answer in time (${code})`;
  if (code === 'ECONNRESET') return `the connection was cut (${code})`;
  if (TLS_CODE.test(code)) return `the TLS handshake failed (${code})`;
  return `the connection failed (${code})`;
}
