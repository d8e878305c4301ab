/** Services as the bot shows and encodes them: localized labels and a one-digit index for buttons. */
import type { MessageKey, Translate } from '../../locales/i18n.js';
import { SERVICES, type Service } from '../../service/services.js';

const LABEL_KEYS: Record<Service, MessageKey> = {
  arbs_prematch: 'svc_arbs_prematch',
  arbs_live: 'svc_arbs_live',
  middles_prematch: 'svc_middles_prematch',
  middles_live: 'svc_middles_live',
  valuebets_prematch: 'svc_valuebets_prematch',
  valuebets_live: 'svc_valuebets_live',
};

/** "Arbs · prematch" / "Вилки · прематч". */
export function serviceLabel(service: Service, t: Translate): string {
  return t(LABEL_KEYS[service]);
}

/** The index used in callback data (the same numbering as the alert buttons). */
export function serviceIndex(service: Service): number {
  return SERVICES.indexOf(service);
}

/** The service for a callback index, or undefined for anything else. */
export function serviceAt(index: string | undefined): Service | undefined {
  if (index === undefined || !/^[0-5]$/.test(index)) return undefined;
  return SERVICES[Number(index)];
}
