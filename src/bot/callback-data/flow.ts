/**
 * The callback data of a guided flow's buttons (/filter's builder, /settings): `cv:` and what the
 * button means inside the flow. A flow only takes presses on its current prompt (see
 * `conversations/prompt.ts`), and every flow reads the same decoded `FlowButton`, so a forged
 * payload (`cv:f:constructor`, `cv:t:1e9`, `cv:p:-5`) is refused here, once, not by each question.
 *
 *   cv:s:<digit>    a service (its place in SERVICES)   cv:all    every option (no narrowing)
 *   cv:v:<n>        ready answer n of a question (0–99)  cv:done   done choosing
 *   cv:f:<field>    a /settings field                    cv:clr    clear the search
 *   cv:t:<id>       toggle option <id> of a list         cv:save   save the filter
 *   cv:p:<n>        page n of a list (< 10^6)            cv:cancel cancel
 *   cv:nop          the page counter (does nothing)
 */
import { withinCallbackLimit } from '../../lib/callback-data.js';
import { serviceCode, serviceFromCode, type Service } from '../../service/services.js';
import { SETTING_FIELDS, type SettingField } from '../actions/settings.js';
import { CALLBACK_PREFIXES } from './registry.js';

export type FlowButton =
  | { type: 'service'; service: Service }
  | { type: 'choice'; index: number }
  | { type: 'field'; field: SettingField }
  | { type: 'toggle'; id: number }
  | { type: 'page'; page: number }
  | { type: 'noop' | 'all' | 'done' | 'clear' | 'save' | 'cancel' };

/** How many ready answers one question may offer, and pages one list may have. */
export const MAX_CHOICES = 100;
export const MAX_PAGES = 1_000_000;

const PREFIX = CALLBACK_PREFIXES.flow;
const WORDS = { noop: 'nop', all: 'all', done: 'done', clear: 'clr', save: 'save', cancel: 'cancel' } as const;
const BY_WORD = new Map<string, keyof typeof WORDS>(Object.entries(WORDS).map(([type, word]) => [word, type as keyof typeof WORDS]));
/** A whole number without sign, exponent or leading zeros. */
const WHOLE = /^(?:0|[1-9][0-9]{0,15})$/;

function whole(text: string | undefined, below: number): number | undefined {
  if (text === undefined || !WHOLE.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && n < below ? n : undefined;
}

function checked(n: number, below: number, what: string): number {
  if (!Number.isSafeInteger(n) || n < 0 || n >= below) throw new RangeError(`flow button: ${what} ${n} is not a whole number below ${below}`);
  return n;
}

/** The data for `button`; a number out of range is a bug in the flow, so it throws. */
export function encodeFlowButton(button: FlowButton): string {
  switch (button.type) {
    case 'service':
      return `${PREFIX}s:${serviceCode(button.service)}`;
    case 'choice':
      return `${PREFIX}v:${checked(button.index, MAX_CHOICES, 'choice')}`;
    case 'field':
      return `${PREFIX}f:${button.field}`;
    case 'toggle':
      return `${PREFIX}t:${checked(button.id, Number.MAX_SAFE_INTEGER, 'option id')}`;
    case 'page':
      return `${PREFIX}p:${checked(button.page, MAX_PAGES, 'page')}`;
    default:
      return `${PREFIX}${WORDS[button.type]}`;
  }
}

/** The button, or `undefined` for anything that is not exactly one of the forms above. */
export function decodeFlowButton(raw: unknown): FlowButton | undefined {
  const data = withinCallbackLimit(raw);
  if (data === undefined || !data.startsWith(PREFIX)) return undefined;
  const body = data.slice(PREFIX.length);
  const word = BY_WORD.get(body);
  if (word !== undefined) return { type: word };
  const colon = body.indexOf(':');
  if (colon < 0) return undefined;
  const tag = body.slice(0, colon);
  const arg = body.slice(colon + 1);
  switch (tag) {
    case 's': {
      const service = serviceFromCode(arg);
      return service ? { type: 'service', service } : undefined;
    }
    case 'v': {
      const index = whole(arg, MAX_CHOICES);
      return index === undefined ? undefined : { type: 'choice', index };
    }
    case 'f': {
      // Only the fields' own names: a lookup by key would also find "constructor" on Object.prototype.
      const field = SETTING_FIELDS.find((f) => f === arg);
      return field ? { type: 'field', field } : undefined;
    }
    case 't': {
      const id = whole(arg, Number.MAX_SAFE_INTEGER);
      return id === undefined ? undefined : { type: 'toggle', id };
    }
    case 'p': {
      const page = whole(arg, MAX_PAGES);
      return page === undefined ? undefined : { type: 'page', page };
    }
    default:
      return undefined;
  }
}
