/**
 * The Mini App API's `reports` for tests that do not look at the CSV's way to the chat: the chat's
 * report cap as the bot keeps it in memory, and a chat that takes every file (kept in `sent`).
 */
import { CAP_RULES, UsageCaps } from '../../src/bot/caps.js';
import type { Clock } from '../../src/clock.js';
import type { MiniAppApiOptions } from '../../src/miniapp/api.js';

export interface SentFile {
  userId: number;
  bytes: Buffer;
  fileName: string;
  caption: string;
}

export function testReports(clock: Clock, sent: SentFile[] = []): MiniAppApiOptions['reports'] {
  const caps = new UsageCaps(clock);
  return {
    takeReport: (userId) => caps.take('report', userId),
    reportRule: CAP_RULES.report,
    sendDocument: async (userId, bytes, fileName, caption) => {
      sent.push({ userId, bytes, fileName, caption });
      return { ok: true };
    },
  };
}
