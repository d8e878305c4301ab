/**
 * The answer to a filter save the service budget refused: nothing is lost (newcomer report #1):
 * the build is kept as a draft, and the answer says so and when it will be written — by the
 * token budget's clock when the key's tokens ran out, "as soon as the budget allows" otherwise.
 * A save that is written says "within seconds" only when the first read is due then (#10).
 */
import { describe, expect, it } from 'vitest';
import { saveOutcomeText } from '../../src/bot/conversations/filter.js';
import { translator } from '../../src/locales/i18n.js';

const NOW = Date.UTC(2026, 10, 28, 5, 0, 0);
const where = (lang: 'en' | 'ru') => ({ now: NOW, zone: 'UTC', lang });

describe('a filter save the budget refused', () => {
  for (const lang of ['en', 'ru'] as const) {
    const t = translator(lang);
    it(`is kept as a draft, with the time it is written (${lang})`, () => {
      const tokens = saveOutcomeText(t, 'arbs_live', { kind: 'draft', expectedAt: NOW + 12 * 60_000, tokens: true }, {}, where(lang));
      expect(tokens).toContain(lang === 'en' ? 'draft' : 'черновик');
      expect(tokens).toContain('05:12');
      expect(tokens).toContain(t('wait_min', { n: 12 }));
      const writes = saveOutcomeText(t, 'arbs_live', { kind: 'draft' }, {}, where(lang));
      expect(writes).toBe(t('fb_saved_draft_later', { service: t('svc_arbs_live') }));
    });

    it(`says "within seconds" only when the first read is due then (${lang})`, () => {
      const soon = saveOutcomeText(t, 'arbs_prematch', { kind: 'saved' }, { arbs_prematch: { share: 1, intervalMs: 2_000, state: 'active', nextTokenAt: NOW } }, where(lang));
      expect(soon).toContain(t('first_read_now'));
      const later = saveOutcomeText(t, 'arbs_prematch', { kind: 'saved' }, { arbs_prematch: { share: 5 / 12, intervalMs: 2_000, state: 'active', nextTokenAt: NOW + 20 * 60_000 } }, where(lang));
      expect(later).not.toContain(t('first_read_now'));
      expect(later).toContain('05:20');
      expect(later).toContain('42 %');
    });
  }
});
