/**
 * The answer to a filter save the service budget refused names the budget that ran out: a write
 * can be refused for want of a token (the key's token requests left to commands are taken), and
 * calling that "only a few filter writes an hour" sends the user after the wrong limit.
 */
import { describe, expect, it } from 'vitest';
import { saveOutcomeText } from '../../src/bot/conversations/filter.js';
import { translator } from '../../src/locales/i18n.js';

describe('a refused filter save', () => {
  for (const lang of ['en', 'ru'] as const) {
    const t = translator(lang);
    it(`says which budget ran out and the wait (${lang})`, () => {
      const tokens = saveOutcomeText(t, 'arbs_live', { kind: 'error', errorKind: 'rate_limited', retryAfterMs: 125_000, tokens: true }, {});
      const writes = saveOutcomeText(t, 'arbs_live', { kind: 'error', errorKind: 'rate_limited', retryAfterMs: 125_000 }, {});
      expect(tokens).toBe(t('fb_save_token_limited', { min: 3 }));
      expect(writes).toBe(t('fb_save_rate_limited', { min: 3 }));
      expect(tokens).not.toBe(writes);
    });

    it(`says when it is the user's own part of a budget every user shares that is used (${lang})`, () => {
      const share = saveOutcomeText(t, 'arbs_live', { kind: 'error', errorKind: 'rate_limited', retryAfterMs: 125_000, tokens: true, userShare: true }, {});
      expect(share).toBe(t('fb_save_user_share', { min: 3 }));
    });
  }
});
