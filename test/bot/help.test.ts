/**
 * /help and the command menu are built from one table (src/bot/commands.ts): every command the bot
 * registers — each `.command(…)` call made while the bot is built, recorded here — is a row of it,
 * and every row but the admin's is in /help (grouped, in English and Russian) and in the menu.
 */
import { Composer } from 'grammy';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS, commandMenu, HELP_GROUPS } from '../../src/bot/commands.js';
import { translator, type Lang } from '../../src/locales/i18n.js';
import { ALICE, BORIS, createHarness, type Harness, withConnectedHarness } from './harness.js';

// Recorded before the harness builds the bot: every name any composer of it registers.
const registered = new Set<string>();
const original = Composer.prototype.command;
const spy = vi.spyOn(Composer.prototype, 'command').mockImplementation(function (this: Composer<never>, ...args: Parameters<typeof original>) {
  const [names] = args;
  for (const name of Array.isArray(names) ? names : [names]) if (typeof name === 'string') registered.add(name);
  return original.apply(this, args);
});
afterAll(() => spy.mockRestore());

let h: Harness;
withConnectedHarness((harness) => (h = harness));

const userCommands = () => [...registered].filter((c) => COMMANDS.find((row) => row.command === c)?.group !== 'admin');

describe('every command in /help and in the menu', () => {
  it('the bot registers commands, each of them a row of the table', () => {
    expect(registered.size).toBeGreaterThan(20);
    for (const c of ['books', 'book', 'staking', 'open', 'pnl', 'export', 'clv', 'stats']) expect(registered).toContain(c);
    const rows = new Set(COMMANDS.map((row) => row.command));
    expect([...registered].filter((c) => !rows.has(c))).toEqual([]);
  });

  it.each([
    ['en', ALICE],
    ['ru', BORIS],
  ] as const)('/help in %s lists every command a user can run, under its group; the menu has each too', async (lang: Lang, user) => {
    if (lang === 'ru') await h.say(BORIS, '/start');
    await h.say(user, '/help');
    const text = h.last(user.id).text;
    const missing = userCommands().filter((c) => !text.includes(`\n/${c} — `));
    expect(missing).toEqual([]);
    const menu = new Set(commandMenu(lang).map((c) => c.command));
    expect(userCommands().filter((c) => !menu.has(c))).toEqual([]);
    // The admin's /stats is neither in the menu nor in a user's /help.
    expect(menu.has('stats')).toBe(false);
    expect(text).not.toContain('/stats');
    // Grouped: each group's title, in the table's group order.
    const t = translator(lang);
    const titles = HELP_GROUPS.map((g) => text.indexOf(`<b>${t(`help_group_${g}`)}</b>`));
    expect(titles.every((i) => i >= 0)).toBe(true);
    expect([...titles].sort((a, b) => a - b)).toEqual(titles);
    // The desk and ledger commands under their groups.
    const desk = text.slice(titles[2], titles[3]);
    for (const c of ['books', 'book', 'staking']) expect(desk).toContain(`\n/${c} — `);
    const ledger = text.slice(titles[3], titles[4]);
    for (const c of ['open', 'pnl', 'export', 'clv']) expect(ledger).toContain(`\n/${c} — `);
  });

  it('/help before /connect too, with the next step', async () => {
    const other = await createHarness();
    try {
      await other.say(ALICE, '/help');
      const text = other.last(ALICE.id).text;
      expect(text).toContain('\n/connect — ');
      expect(text).toContain('\n/pnl — ');
      expect(text).toContain('Next step: connect');
    } finally {
      await other.close();
    }
  });
});
