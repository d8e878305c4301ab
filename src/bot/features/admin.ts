/** /stats for ADMIN_USER_IDS: users, subscriptions, and the live counts of the stats provider. */
import { Composer } from 'grammy';
import { SERVICES } from '../../service/services.js';
import type { BotContext } from '../context.js';
import type { BotRuntime } from '../deps.js';

export function adminFeature(rt: BotRuntime): Composer<BotContext> {
  const composer = new Composer<BotContext>();
  const admins = new Set(rt.config.ADMIN_USER_IDS);

  // Others never learn that the command exists: it falls through to "unknown command".
  composer.filter((ctx) => ctx.from !== undefined && admins.has(ctx.from.id)).command('stats', async (ctx) => {
    const users = rt.store.listUsers();
    let active = 0;
    let paused = 0;
    for (const user of users) {
      for (const s of SERVICES) {
        const record = user.filters[s];
        if (!record) continue;
        if (record.paused || user.blocked) paused++;
        else active++;
      }
    }
    const counts = new Map<string, number>([
      ['users', users.length],
      ['users_with_key', users.filter((u) => u.key !== null).length],
      ['users_blocked', users.filter((u) => u.blocked).length],
      ['subscriptions_active', active],
      ['subscriptions_paused', paused],
      ['alert_state_entries', rt.store.alerts.size()],
    ]);
    // The provider knows the live figures (reads and alerts a minute, errors); its names win.
    for (const [name, value] of Object.entries(rt.stats?.() ?? {})) if (Number.isFinite(value)) counts.set(name, value);
    const lines = [...counts].map(([name, value]) => ctx.t('stats_line', { name, value: Math.round(value * 100) / 100 }));
    await ctx.reply(`${ctx.t('stats_title')}\n${lines.join('\n')}`);
  });

  return composer;
}
