/**
 * Which route a request path names. One server serves every "host" under a base path:
 * /auth, /dicts and the six data bases (/arbs-prematch … /valuebets-live).
 */
import { SERVICES, type Service } from '../service/services.js';
import type { RouteName } from './types.js';

/** The base path of a service's Data API host: arbs_prematch → /arbs-prematch. */
export function basePathOf(service: Service): string {
  return `/${service.replace('_', '-')}`;
}

const SERVICE_BY_BASE = new Map<string, Service>(SERVICES.map((s) => [basePathOf(s).slice(1), s]));

/** A recognised request target. `methods` are the ones the route allows. */
export type Route =
  | { name: 'token'; methods: readonly string[]; accessKey: string }
  | { name: 'dicts'; methods: readonly string[]; lang: string | undefined }
  | { name: 'filter'; methods: readonly string[]; service: Service; account: string; form: 'A' | 'B' }
  | { name: 'items'; methods: readonly string[]; service: Service; account: string; form: 'A' | 'B' }
  | { name: 'event_items'; methods: readonly string[]; service: Service; account: string; eventId: string }
  | { name: 'item'; methods: readonly string[]; service: Service; account: string; itemId: string }
  | { name: 'other' };

function segmentsOf(pathname: string): string[] | undefined {
  try {
    return pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

/** Parses a request path (without the query) into a route; unknown paths are 'other'. */
export function matchRoute(pathname: string): Route {
  const seg = segmentsOf(pathname);
  if (!seg || seg.length === 0) return { name: 'other' };
  const [base, ...rest] = seg;
  const POST = ['POST'] as const;
  const GET = ['GET'] as const;
  if (base === 'auth') {
    if (rest.length === 3 && rest[0] === 'access_keys' && rest[2] === 'access_tokens' && rest[1]) {
      return { name: 'token', methods: POST, accessKey: rest[1] };
    }
    return { name: 'other' };
  }
  if (base === 'dicts') {
    if (rest[0] === 'v1' && rest.length <= 2) return { name: 'dicts', methods: GET, lang: rest[1] };
    return { name: 'other' };
  }
  const service = base === undefined ? undefined : SERVICE_BY_BASE.get(base);
  if (!service) return { name: 'other' };
  const r = rest;
  // Form A: /filters/{account}[/items]
  if (r[0] === 'filters' && r[1]) {
    if (r.length === 2) return { name: 'filter', methods: POST, service, account: r[1], form: 'A' };
    if (r.length === 3 && r[2] === 'items') return { name: 'items', methods: POST, service, account: r[1], form: 'A' };
    return { name: 'other' };
  }
  // Form B: /v1/users/{account}/...
  if (r[0] === 'v1' && r[1] === 'users' && r[2]) {
    const account = r[2];
    const tail = r.slice(3);
    if (tail.length === 1 && tail[0] === 'filter') return { name: 'filter', methods: ['POST', 'PUT'], service, account, form: 'B' };
    if (tail.length === 2 && tail[0] === 'filter' && tail[1] === 'items') return { name: 'items', methods: GET, service, account, form: 'B' };
    if (tail.length === 4 && tail[0] === 'filter' && tail[1] === 'events' && tail[2] && tail[3] === 'items') {
      return { name: 'event_items', methods: GET, service, account, eventId: tail[2] };
    }
    if (tail.length === 2 && tail[0] === 'items' && tail[1]) return { name: 'item', methods: GET, service, account, itemId: tail[1] };
  }
  return { name: 'other' };
}

/** Route names as counted. */
export function routeName(route: Route): RouteName {
  return route.name;
}
