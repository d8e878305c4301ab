/**
 * The callback data of /filters' buttons: `f:<action>:<service digit>`, where the action is one of
 * p (pause), r (resume), e (edit), d (delete: ask), dy (delete: yes), dn (delete: no). The wire
 * forms are the ones lists already sent carry, so those buttons keep working.
 */
import { withinCallbackLimit } from '../../lib/callback-data.js';
import { serviceCode, serviceFromCode, type Service } from '../../service/services.js';
import { CALLBACK_PREFIXES } from './registry.js';

export type FiltersActionType = 'pause' | 'resume' | 'edit' | 'delete' | 'deleteYes' | 'deleteNo';

/** What a pressed /filters button asks for. */
export interface FiltersAction {
  type: FiltersActionType;
  service: Service;
}

const TAGS: Record<FiltersActionType, string> = { pause: 'p', resume: 'r', edit: 'e', delete: 'd', deleteYes: 'dy', deleteNo: 'dn' };
const BY_TAG = new Map(Object.entries(TAGS).map(([type, tag]) => [tag, type as FiltersActionType]));
const PREFIX = CALLBACK_PREFIXES.filters;
const FORM = new RegExp(`^${PREFIX}([a-z]{1,2}):([0-9])$`);

export function encodeFiltersAction(action: FiltersAction): string {
  return `${PREFIX}${TAGS[action.type]}:${serviceCode(action.service)}`;
}

/** The action, or `undefined` for anything that is not exactly one of the forms above. */
export function decodeFiltersAction(raw: unknown): FiltersAction | undefined {
  const data = withinCallbackLimit(raw);
  const m = data === undefined ? null : FORM.exec(data);
  if (!m) return undefined;
  const type = BY_TAG.get(m[1]!);
  const service = serviceFromCode(m[2]);
  return type && service ? { type, service } : undefined;
}
