/**
 * /status: quiet hours when they hold alerts now (until when), the key's token budget in words (how
 * services share it, and what each one's coverage means), then per service, active or paused and
 * why, coverage, the last good read, the last alert sent (held ones are not) and error, and why a
 * service has alerted nothing for an hour; a draft waiting for the budget, with when it is
 * expected to be written.
 */
import { Composer } from 'grammy';
import { SERVICES } from '../../service/services.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { freshUser } from '../actions/fresh-user.js';
import { errorInWords, filterState, intervalWords, sharePct } from '../ui/filter-text.js';
import { maskKey } from '../ui/mask.js';
import { dictionariesFor } from '../ui/cards.js';
import { silenceLines } from '../ui/silence.js';
import { namesFor } from '../../service/dictionaries-model.js';
import { serviceLabel } from '../../locales/services.js';
import { formatClockTime, formatWhen } from '../ui/time-words.js';
import { quietUntil } from '../../alerts/time.js';
import { budgetRule, coverageLines, draftWhen } from '../ui/budget-text.js';

export function statusFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  composer.command('status', async (ctx) => {
    const user = ctx.user && ((await freshUser(rt, ctx.user.id)) ?? ctx.user);
    const t = ctx.t;
    if (!user?.key) {
      await ctx.reply(t('need_key'));
      return;
    }
    const now = rt.clock.now();
    const zone = user.timeZone;
    const services = SERVICES.filter((s) => user.filters[s] !== undefined);
    const blocks = [t('status_key', { key: maskKey(user.key.accessKey), when: formatClockTime(user.key.connectedAt, zone, ctx.lang) })];
    if (services.length === 0) blocks.push(t('next_filter'));
    // Inside quiet hours nothing arrives: said first, with when the held alerts come.
    const quietEnd = quietUntil(user.quietHours, zone, now);
    if (quietEnd !== null && user.quietHours) {
      blocks.push(t('status_quiet_on', { from: user.quietHours.from, to: user.quietHours.to, until: formatClockTime(quietEnd, zone, ctx.lang) }));
    }
    const coverage = rt.scheduler.coverage(user.id);
    const budget = coverageLines(coverage, user.serviceRank, t);
    blocks.push(budget === '' ? budgetRule(rt.config.LIMIT_TOKENS_PER_HOUR, t) : `${budgetRule(rt.config.LIMIT_TOKENS_PER_HOUR, t)}\n${t('budget_now')}\n${budget}`);
    for (const s of SERVICES) {
      if (!user.drafts[s] || user.filters[s]) continue;
      const when = draftWhen(coverage[s]?.nextTokenAt, now, zone, ctx.lang, t);
      blocks.push(`<b>${t('value', { value: serviceLabel(s, t) })}</b> — ${when ? t('filters_draft', when) : t('filters_draft_later')}`);
    }
    const dicts = services.length > 0 ? await dictionariesFor(rt, ctx.lang) : undefined;
    const names = namesFor(dicts, ctx.lang);
    for (const s of services) {
      const record = user.filters[s];
      if (!record) continue;
      const status = user.status[s];
      const lines = [`<b>${t('value', { value: serviceLabel(s, t) })}</b> — ${filterState(record, t)}`];
      const cov = coverage[s];
      if (record.paused || !cov || cov.state !== 'active') {
        lines.push(t('status_not_polled'));
      } else {
        const words = { share: sharePct(cov.share), every: intervalWords(cov.intervalMs, t) };
        // LIMIT_SCOPE=address: one read serves everyone with the same filter; the user is told with how many.
        lines.push(cov.sharedWith ? t('status_coverage_shared', { ...words, n: cov.sharedWith }) : t('status_coverage', words));
      }
      const snoozed = user.snoozedUntil[s];
      if (snoozed !== undefined && snoozed > now) lines.push(t('status_snoozed', { until: formatClockTime(snoozed, zone, ctx.lang) }));
      lines.push(`${t('status_last_read')}: ${formatWhen(status?.lastGoodReadAt, now, zone, ctx.lang, t)}`);
      lines.push(`${t('status_last_alert')}: ${formatWhen(status?.lastAlertAt, now, zone, ctx.lang, t)}`);
      const leftOut = status?.leftOut;
      if (leftOut && leftOut.hour === Math.floor(now / 3_600_000) && leftOut.count > 0) lines.push(t('status_left_out', { n: leftOut.count }));
      const err = status?.lastError;
      lines.push(`${t('status_last_error')}: ${err ? `${errorInWords(err.kind, t)} — ${formatWhen(err.at, now, zone, ctx.lang, t)}` : t('none')}`);
      lines.push(...silenceLines(user, s, cov, now, t, names, dicts?.liveBookmakers));
      blocks.push(lines.join('\n'));
    }
    await ctx.reply(blocks.join('\n\n'));
  });

  return composer;
}
