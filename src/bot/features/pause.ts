/** /pause [service] and /resume [service]: all filters, or the named one. */
import { Composer } from 'grammy';
import { parseService, SERVICES, type Service } from '../../service/services.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';
import { clipEcho } from '../parse/values.js';
import { serviceLabel } from '../../locales/services.js';
import { setPaused } from './filters-list.js';

export function pauseFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();

  const handle = (paused: boolean) => async (ctx: BotContext & { match: string }) => {
    const user = ctx.user;
    const word = ctx.match.trim();
    const mine = SERVICES.filter((s) => user?.filters[s] !== undefined);
    if (!user || mine.length === 0) {
      await ctx.reply(ctx.t('filters_none'));
      return;
    }
    let targets: Service[] = mine;
    if (word !== '') {
      const service = parseService(word);
      if (!service) {
        await ctx.reply(ctx.t('unknown_service', { value: clipEcho(word) }));
        return;
      }
      if (!user.filters[service]) {
        await ctx.reply(ctx.t('no_filter_for', { service: serviceLabel(service, ctx.t) }));
        return;
      }
      targets = [service];
    }
    for (const s of targets) setPaused(rt, user.id, s, paused);
    rt.scheduler.refreshUser(user.id);
    const list = targets.map((s) => serviceLabel(s, ctx.t)).join(', ');
    await ctx.reply(ctx.t(paused ? 'paused_list' : 'resumed_list', { list, n: targets.length }));
  };

  composer.command('pause', handle(true));
  composer.command('resume', handle(false));
  return composer;
}
