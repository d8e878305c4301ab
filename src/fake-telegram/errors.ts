/**
 * Telegram's error answers: the exception a fake method throws, the JSON shape it becomes, and the
 * answers injected faults give.
 */
import type { FaultSpec } from './types.js';

/** A Bot API error answer, thrown inside a method and turned into `{ ok: false, … }`. */
export class ApiFailure extends Error {
  override name = 'ApiFailure';
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: { retry_after?: number; migrate_to_chat_id?: number },
  ) {
    super(description);
  }
}

export type ApiAnswer =
  | { ok: true; result: unknown }
  | {
      ok: false;
      error_code: number;
      description: string;
      parameters?: { retry_after?: number; migrate_to_chat_id?: number };
    };

/** What the HTTP layer does with a call: answer it, or drop the connection (an injected network fault). */
export type CallOutcome = { kind: 'answer'; answer: ApiAnswer } | { kind: 'drop' };

/** The answer an injected fault gives (a `network` fault has none: the connection is dropped). */
export function faultAnswer(fault: FaultSpec & { code: Exclude<FaultSpec['code'], 'network'> }): ApiAnswer {
  switch (fault.code) {
    case 429: {
      const retryAfter = fault.retryAfter ?? 1;
      return {
        ok: false,
        error_code: 429,
        description: fault.description ?? `Too Many Requests: retry after ${retryAfter}`,
        parameters: { retry_after: retryAfter },
      };
    }
    case 403:
      return { ok: false, error_code: 403, description: fault.description ?? 'Forbidden: bot was blocked by the user' };
    case 400:
      return { ok: false, error_code: 400, description: fault.description ?? 'Bad Request' };
    case 500:
      return { ok: false, error_code: 500, description: fault.description ?? 'Internal Server Error' };
    case 502:
      return { ok: false, error_code: 502, description: fault.description ?? 'Bad Gateway' };
    case 503:
      return { ok: false, error_code: 503, description: fault.description ?? 'Service Unavailable' };
  }
}
