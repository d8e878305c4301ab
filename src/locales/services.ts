/**
 * Services as a user reads them ("Arbs · live" / "Вилки · лайв"), the one table of display names:
 * the bot's buttons and lists, and anything else that names a service to a user, take it from here.
 */
import type { Service } from '../service/services.js';
import type { MessageKey } from './en.js';
import { translator, type Lang, type Translate } from './i18n.js';

const LABEL_KEYS: Record<Service, MessageKey> = {
  arbs_prematch: 'svc_arbs_prematch',
  arbs_live: 'svc_arbs_live',
  middles_prematch: 'svc_middles_prematch',
  middles_live: 'svc_middles_live',
  valuebets_prematch: 'svc_valuebets_prematch',
  valuebets_live: 'svc_valuebets_live',
};

/** "Arbs · prematch" / "Вилки · прематч", through a request's own `t`. */
export function serviceLabel(service: Service, t: Translate): string {
  return t(LABEL_KEYS[service]);
}

/** The same label in `lang`, for code that has a language but no request (notices). */
export function serviceName(service: Service, lang: Lang): string {
  return serviceLabel(service, translator(lang));
}
