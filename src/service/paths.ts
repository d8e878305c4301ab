/**
 * Where each operation goes: the Data API host of a service and the two path forms of the seed
 * (§4): form A (`/filters/{account}`) and form B (`/v1/users/{account}/…`). `{account}` is the
 * access key with the configured prefix (`bb-` by default, empty for the seed's bare key).
 */
import type { Config } from '../config.js';
import { ServiceError } from './errors.js';
import type { HttpMethod } from './http.js';
import type { Service } from './services.js';

/** The settings that decide where requests go. */
export type PathConfig = Pick<
  Config,
  | 'BB_AUTH_URL'
  | 'BB_DICTS_URL'
  | 'BB_ARBS_PREMATCH_URL'
  | 'BB_ARBS_LIVE_URL'
  | 'BB_MIDDLES_PREMATCH_URL'
  | 'BB_MIDDLES_LIVE_URL'
  | 'BB_VALUEBETS_PREMATCH_URL'
  | 'BB_VALUEBETS_LIVE_URL'
  | 'BB_PATH_FORM'
  | 'BB_ACCOUNT_PREFIX'
>;

/** A method and a full URL. */
export interface Endpoint {
  method: HttpMethod;
  url: string;
}

/** The setting that holds each service's Data API base URL. */
export const BASE_SETTING = {
  arbs_prematch: 'BB_ARBS_PREMATCH_URL',
  arbs_live: 'BB_ARBS_LIVE_URL',
  middles_prematch: 'BB_MIDDLES_PREMATCH_URL',
  middles_live: 'BB_MIDDLES_LIVE_URL',
  valuebets_prematch: 'BB_VALUEBETS_PREMATCH_URL',
  valuebets_live: 'BB_VALUEBETS_LIVE_URL',
} as const satisfies Record<Service, keyof PathConfig>;

/** The Data API base URL of `service`, without a trailing slash. */
export function serviceBaseUrl(config: PathConfig, service: Service): string {
  return trimSlash(config[BASE_SETTING[service]]);
}

/**
 * One URL path segment from outside text (an access key, an item or event id), encoded. "." and
 * ".." survive encodeURIComponent and URL parsing turns them into a step up the path (so does
 * "%2e"), so a segment of dots only, or an empty one, is refused before anything is sent.
 */
export function pathSegment(value: string): string {
  if (/^\.*$/.test(value)) throw new ServiceError('not_found', 'an id or key that cannot be a path segment', { local: true });
  return encodeURIComponent(value);
}

/** `{account}` in a path: prefix + access key, URL-encoded. */
export function accountSegment(config: PathConfig, accessKey: string): string {
  return pathSegment(`${config.BB_ACCOUNT_PREFIX}${accessKey}`);
}

/** §4.1: the token request. The seed writes the bare access key here (no prefix). */
export function tokenEndpoint(config: PathConfig, accessKey: string): Endpoint {
  return {
    method: 'POST',
    url: `${trimSlash(config.BB_AUTH_URL)}/access_keys/${pathSegment(accessKey)}/access_tokens`,
  };
}

/** §4.2: create or replace the filter, in the configured form. */
export function filterEndpoint(config: PathConfig, service: Service, accessKey: string): Endpoint {
  const base = serviceBaseUrl(config, service);
  const account = accountSegment(config, accessKey);
  return config.BB_PATH_FORM === 'A'
    ? { method: 'POST', url: `${base}/filters/${account}` }
    : { method: 'POST', url: `${base}/v1/users/${account}/filter` };
}

/** §4.3: the filter's item list, in the configured form (form A is a POST). */
export function itemsEndpoint(config: PathConfig, service: Service, accessKey: string): Endpoint {
  const base = serviceBaseUrl(config, service);
  const account = accountSegment(config, accessKey);
  return config.BB_PATH_FORM === 'A'
    ? { method: 'POST', url: `${base}/filters/${account}/items` }
    : { method: 'GET', url: `${base}/v1/users/${account}/filter/items` };
}

/** §4.3: items of one event under the filter; only form B has it, whatever the setting. */
export function eventItemsEndpoint(config: PathConfig, service: Service, accessKey: string, eventId: string): Endpoint {
  const base = serviceBaseUrl(config, service);
  const account = accountSegment(config, accessKey);
  return { method: 'GET', url: `${base}/v1/users/${account}/filter/events/${pathSegment(eventId)}/items` };
}

/** §4.3: one item by id; only form B has it, whatever the setting. */
export function itemEndpoint(config: PathConfig, service: Service, accessKey: string, itemId: string): Endpoint {
  const base = serviceBaseUrl(config, service);
  const account = accountSegment(config, accessKey);
  return { method: 'GET', url: `${base}/v1/users/${account}/items/${pathSegment(itemId)}` };
}

/** §4.4: dictionaries, in one language or (lang undefined) without a language selection. */
export function dictionariesEndpoint(config: Pick<PathConfig, 'BB_DICTS_URL'>, lang?: string): Endpoint {
  const base = trimSlash(config.BB_DICTS_URL);
  return { method: 'GET', url: lang === undefined ? `${base}/v1` : `${base}/v1/${encodeURIComponent(lang)}` };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
