import { describe, expect, it } from 'vitest';
import { defaultFilter, filterSettingsSchema } from '../../src/service/filter-model.js';
import { toFilterBody } from '../../src/service/filter-body.js';
import {
  accountSegment,
  dictionariesEndpoint,
  eventItemsEndpoint,
  filterEndpoint,
  itemEndpoint,
  itemsEndpoint,
  serviceBaseUrl,
  tokenEndpoint,
} from '../../src/service/paths.js';
import { configFor } from './helpers.js';

describe('paths', () => {
  const a = configFor('http://h');
  const b = configFor('http://h', { BB_PATH_FORM: 'B', BB_ACCOUNT_PREFIX: '' });

  it('builds form A paths with the bb- prefix', () => {
    expect(filterEndpoint(a, 'arbs_live', 'k1')).toEqual({ method: 'POST', url: 'http://h/arbs-live/filters/bb-k1' });
    expect(itemsEndpoint(a, 'arbs_live', 'k1')).toEqual({ method: 'POST', url: 'http://h/arbs-live/filters/bb-k1/items' });
  });

  it('builds form B paths with the bare key', () => {
    expect(filterEndpoint(b, 'middles_prematch', 'k1')).toEqual({
      method: 'POST',
      url: 'http://h/middles-prematch/v1/users/k1/filter',
    });
    expect(itemsEndpoint(b, 'middles_prematch', 'k1')).toEqual({
      method: 'GET',
      url: 'http://h/middles-prematch/v1/users/k1/filter/items',
    });
  });

  it('uses form B for per-event and by-id reads whatever the setting, and encodes ids', () => {
    expect(eventItemsEndpoint(a, 'valuebets_live', 'k1', 'e/1 x')).toEqual({
      method: 'GET',
      url: 'http://h/valuebets-live/v1/users/bb-k1/filter/events/e%2F1%20x/items',
    });
    expect(itemEndpoint(a, 'valuebets_live', 'k1', 'id?1')).toEqual({
      method: 'GET',
      url: 'http://h/valuebets-live/v1/users/bb-k1/items/id%3F1',
    });
    expect(accountSegment(a, 'a/b')).toBe('bb-a%2Fb');
  });

  it('sends the token request to the auth host with the bare key, and dictionaries with or without a language', () => {
    expect(tokenEndpoint(a, 'k 1')).toEqual({ method: 'POST', url: 'http://h/auth/access_keys/k%201/access_tokens' });
    expect(dictionariesEndpoint(a)).toEqual({ method: 'GET', url: 'http://h/dicts/v1' });
    expect(dictionariesEndpoint(a, 'ru')).toEqual({ method: 'GET', url: 'http://h/dicts/v1/ru' });
    expect(serviceBaseUrl(configFor('http://h', { BB_ARBS_LIVE_URL: 'http://x/' }), 'arbs_live')).toBe('http://x');
  });
});

describe('toFilterBody', () => {
  it('leaves out what means "no restriction"', () => {
    expect(toFilterBody('arbs', defaultFilter())).toEqual({ min: 0, sort: 'percent' });
  });

  it('maps every setting onto the service names', () => {
    const filter = filterSettingsSchema.parse({
      sports: [1, 6],
      bookmakers: [7, 39],
      minProfit: 1.5,
      maxProfit: 20,
      minOdds: 1.4,
      maxOdds: null,
      hoursToStart: 12,
    });
    expect(toFilterBody('middles', filter)).toEqual({
      min: 1.5,
      max: 20,
      sports: [1, 6],
      allowed_bookmakers: [7, 39],
      coeffs_ranges: [{ min: 1.4, max: null }],
      age: 12,
      sort: 'percent',
    });
  });

  it('uses the minimum overvalue as min for valuebets and never a profit max', () => {
    const filter = filterSettingsSchema.parse({ minProfit: 3, maxProfit: 9, minOvervalue: 4 });
    expect(toFilterBody('valuebets', filter)).toEqual({ min: 4, sort: 'percent' });
    expect(toFilterBody('valuebets', defaultFilter()).min).toBe(0);
  });
});

describe('path segments from outside text', () => {
  const b = configFor('http://h', { BB_PATH_FORM: 'B', BB_ACCOUNT_PREFIX: '' });

  it('refuses keys and ids of dots only, which URL parsing would turn into a step up the path', () => {
    for (const dots of ['.', '..', '...', '']) {
      expect(() => tokenEndpoint(b, dots)).toThrow(/path segment/);
      expect(() => itemEndpoint(b, 'arbs_live', 'k1', dots)).toThrow(/path segment/);
      expect(() => eventItemsEndpoint(b, 'arbs_live', 'k1', dots)).toThrow(/path segment/);
      expect(() => filterEndpoint(b, 'arbs_live', dots)).toThrow(/path segment/);
    }
    // Dots with anything else are an ordinary segment.
    expect(itemEndpoint(b, 'arbs_live', 'k1', 'a..b').url).toBe('http://h/arbs-live/v1/users/k1/items/a..b');
  });
});
