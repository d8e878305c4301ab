/**
 * What the bot tells a user when the scheduler pauses a subscription (en/ru): why alerts for a
 * service stopped and what to do. The notifier sends it; the reasons are the scheduler's
 * (`NoticeReason`, src/scheduler/port.ts). Plain text with no interpolated user input, safe in
 * HTML parse mode.
 */
import type { Service } from '../service/services.js';
import { serviceName } from '../locales/services.js';
import type { Lang } from '../store/schema.js';
import type { DraftOutcome, NoticeReason } from '../scheduler/port.js';
import { translator } from '../locales/i18n.js';

/** The message for a paused subscription: what happened, then the next step. */
export function noticeText(reason: NoticeReason, service: Service, lang: Lang): string {
  const name = serviceName(service, lang);
  if (lang === 'ru') {
    return reason === 'auth'
      ? `⚠️ Оповещения «${name}» приостановлены: сервис больше не принимает вашу пару ключей ` +
          `(ключ мог быть изменён или удалён).\nПодключите ключ заново командой /connect, затем включите оповещения: /resume ${service}`
      : `⚠️ Оповещения «${name}» приостановлены: у вашего ключа нет доступа к «${name}» ` +
          `(подписка могла закончиться или ключ отозван).\nПроверьте тариф в личном кабинете сервиса, затем включите оповещения: /resume ${service}`;
  }
  return reason === 'auth'
    ? `⚠️ Alerts for ${name} are paused: the service no longer accepts your access key pair ` +
        `(it may have been changed or deleted).\nConnect it again with /connect, then turn alerts back on: /resume ${service}`
    : `⚠️ Alerts for ${name} are paused: your key has no access to ${name} ` +
        `(the subscription may have ended or the key was revoked).\nCheck your plan in your account on the service's website, then turn alerts back on: /resume ${service}`;
}

/**
 * What became of a draft filter (src/scheduler/drafts.ts): written and live — its first read comes
 * at once, on the token the write took — or dropped because the service refused the key or its
 * access. Service names only: no user input.
 */
export function draftText(outcome: DraftOutcome, service: Service, lang: Lang): string {
  const t = translator(lang);
  const vars = { service: serviceName(service, lang) };
  if (outcome === 'live') return t('draft_live', { ...vars, first: t('first_read_now') });
  return t(outcome === 'auth' ? 'draft_dropped_auth' : 'draft_dropped_forbidden', vars);
}
