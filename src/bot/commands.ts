/**
 * The bot's commands, in one table: each row is a command, the /help group it is listed under,
 * its menu description (cmd_*) and, where the menu's few words are not enough, a longer /help
 * line (help_*). Both the command menu (setMyCommands) and /help are built from it, so a new
 * command is one row here (plus its messages); test/bot/help.test.ts fails when a command the bot
 * registers is missing from the table, the menu or /help. /help does not depend on the menu:
 * it is the full list even when Telegram refused setMyCommands at start.
 */
import type { BotCommand } from 'grammy/types';
import { translator, type Lang, type MessageKey, type Translate } from '../locales/i18n.js';

/** The /help groups, in the order /help lists them. */
export const HELP_GROUPS = ['alerts', 'filters', 'desk', 'ledger', 'settings', 'lookups'] as const;
export type HelpGroup = (typeof HELP_GROUPS)[number];

const GROUP_TITLES: Record<HelpGroup, MessageKey> = {
  alerts: 'help_group_alerts',
  filters: 'help_group_filters',
  desk: 'help_group_desk',
  ledger: 'help_group_ledger',
  settings: 'help_group_settings',
  lookups: 'help_group_lookups',
};

export interface CommandRow {
  command: string;
  /** Where /help lists it; `admin`: neither in the menu nor in /help (only the bot's admins may run it). */
  group: HelpGroup | 'admin';
  /** The menu's description (plain text, at most 256 characters). */
  menu: MessageKey;
  /** The /help line after "/command — " (HTML), when it says more than the menu's words. */
  help?: MessageKey;
}

/** Every command the bot answers, in the menu's order. */
export const COMMANDS: readonly CommandRow[] = [
  { command: 'start', group: 'settings', menu: 'cmd_start' },
  { command: 'help', group: 'settings', menu: 'cmd_help' },
  { command: 'connect', group: 'settings', menu: 'cmd_connect', help: 'help_connect' },
  { command: 'filter', group: 'filters', menu: 'cmd_filter', help: 'help_filter' },
  { command: 'filters', group: 'filters', menu: 'cmd_filters' },
  { command: 'status', group: 'alerts', menu: 'cmd_status' },
  { command: 'rank', group: 'filters', menu: 'cmd_rank' },
  { command: 'pause', group: 'alerts', menu: 'cmd_pause', help: 'help_pause' },
  { command: 'resume', group: 'alerts', menu: 'cmd_resume' },
  { command: 'settings', group: 'settings', menu: 'cmd_settings' },
  { command: 'books', group: 'desk', menu: 'cmd_books' },
  { command: 'app', group: 'desk', menu: 'cmd_app' },
  { command: 'book', group: 'desk', menu: 'cmd_book', help: 'help_book' },
  { command: 'staking', group: 'desk', menu: 'cmd_staking', help: 'help_staking' },
  { command: 'item', group: 'lookups', menu: 'cmd_item', help: 'help_item' },
  { command: 'event', group: 'lookups', menu: 'cmd_event', help: 'help_event' },
  { command: 'sports', group: 'filters', menu: 'cmd_sports' },
  { command: 'bookmakers', group: 'filters', menu: 'cmd_bookmakers' },
  { command: 'glossary', group: 'lookups', menu: 'cmd_glossary', help: 'help_glossary' },
  { command: 'muted', group: 'alerts', menu: 'cmd_muted' },
  { command: 'open', group: 'ledger', menu: 'cmd_open' },
  { command: 'positions', group: 'ledger', menu: 'cmd_positions' },
  { command: 'add', group: 'ledger', menu: 'cmd_add' },
  { command: 'pnl', group: 'ledger', menu: 'cmd_pnl' },
  { command: 'export', group: 'ledger', menu: 'cmd_export' },
  { command: 'archive', group: 'ledger', menu: 'cmd_archive' },
  { command: 'clv', group: 'ledger', menu: 'cmd_clv' },
  { command: 'forget', group: 'settings', menu: 'cmd_forget' },
  { command: 'cancel', group: 'settings', menu: 'cmd_cancel' },
  { command: 'stats', group: 'admin', menu: 'cmd_stats' },
];

/** Every command the bot answers. */
export const KNOWN_COMMANDS: ReadonlySet<string> = new Set(COMMANDS.map((row) => row.command));

/** The command menu in one language, for setMyCommands: every command but the admin's. */
export function commandMenu(lang: Lang): BotCommand[] {
  const t = translator(lang);
  return COMMANDS.filter((row) => row.group !== 'admin').map((row) => ({ command: row.command, description: t(row.menu) }));
}

/** /help's list: every command but the admin's, under its group's title, with its longer line where it has one. */
export function helpList(t: Translate): string {
  return HELP_GROUPS.map((group) => {
    const lines = COMMANDS.filter((row) => row.group === group).map((row) => `/${row.command} — ${t(row.help ?? row.menu)}`);
    return [`<b>${t(GROUP_TITLES[group])}</b>`, ...lines].join('\n');
  }).join('\n\n');
}

/**
 * The command a message starts with ("/filter@my_bot x" → "filter"), or undefined. Used to let a
 * command typed in the middle of a flow end that flow.
 */
export function leadingCommand(text: string | undefined): string | undefined {
  const m = /^\/([A-Za-z0-9_]{1,32})(?:@\w+)?(?:\s|$)/.exec(text ?? '');
  return m?.[1]?.toLowerCase();
}
