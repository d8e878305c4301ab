/** The six services of the Data Service: three kinds of opportunity, each prematch and live. */
import { z } from 'zod';

export const SERVICES = [
  'arbs_prematch',
  'arbs_live',
  'middles_prematch',
  'middles_live',
  'valuebets_prematch',
  'valuebets_live',
] as const;

export const serviceSchema = z.enum(SERVICES);
export type Service = (typeof SERVICES)[number];
export type Kind = 'arbs' | 'middles' | 'valuebets';

export function kindOf(service: Service): Kind {
  return service.slice(0, service.indexOf('_')) as Kind;
}

export function isLive(service: Service): boolean {
  return service.endsWith('_live');
}

export function isService(value: string): value is Service {
  return (SERVICES as readonly string[]).includes(value);
}

/** Accepts the forms users type: `arbs_live`, `arbs-live`, `arbs live`, `ARBS_LIVE`. */
export function parseService(text: string): Service | undefined {
  const normal = text.trim().toLowerCase().replace(/[\s-]+/g, '_');
  return isService(normal) ? normal : undefined;
}

/**
 * A service as one digit, its place in SERVICES: the form callback data carries (Telegram allows
 * 64 bytes, and an alert button already spends most on an id). The only encoder of that digit.
 */
export function serviceCode(service: Service): string {
  return String(SERVICES.indexOf(service));
}

/** The service a one-digit code names, or undefined for anything else (the only decoder). */
export function serviceFromCode(code: string | undefined): Service | undefined {
  if (code === undefined || !/^[0-9]$/.test(code)) return undefined;
  return SERVICES[Number(code)];
}
