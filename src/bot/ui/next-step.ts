/** What the user should do next, from what they have done so far (for /start and /help). */
import type { MessageKey } from '../../locales/i18n.js';
import { SERVICES } from '../../service/services.js';
import type { UserRecord } from '../../store/schema.js';

export function nextStepKey(user: Readonly<UserRecord> | undefined): MessageKey {
  if (!user?.key) return 'next_connect';
  const filters = SERVICES.map((s) => user.filters[s]).filter((f) => f !== undefined);
  if (filters.length === 0) return 'next_filter';
  if (filters.every((f) => f.paused)) return 'next_resume';
  return 'next_running';
}
