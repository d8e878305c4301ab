/**
 * One taxonomy of service errors that callers switch on (`err.kind`). Messages name what
 * happened and never carry a secret, a token or a request body.
 */
export type ServiceErrorKind =
  | 'auth' // 401: the key pair is wrong, or a token was refused after one renewal
  | 'forbidden' // 403: right pair, no access to this service (or the key was revoked)
  | 'rate_limited' // 429 from the service, or our own limiter refused to wait
  | 'not_found' // 404/405: unknown id, or the path form is not offered by this host
  | 'server' // 5xx
  | 'timeout' // no answer in time, or the connection failed
  | 'malformed'; // an answer we could not parse or use

export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    readonly details: {
      status?: number;
      /** ms to wait before the next try, from Retry-After or our own limiter. */
      retryAfterMs?: number;
      /** True when our own limiter refused: nothing was sent. */
      local?: boolean;
      /** Which of our limits refused (with `local`): a filter write can wait on its token, not on filter writes. */
      limit?: 'tokens' | 'filters' | 'items' | 'dicts';
      /** With `local`: the caller's user holds their own share of the interactive budget (others may still go). */
      share?: 'user';
    } = {},
  ) {
    super(message);
  }

  /** Worth trying again later without any change by the user. */
  get transient(): boolean {
    return this.kind === 'server' || this.kind === 'timeout' || this.kind === 'rate_limited' || this.kind === 'malformed';
  }
}

export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof ServiceError;
}
