/** The bot's commands: the menu set at start (English and Russian) and the names the flows recognise. */
import type { BotCommand } from 'grammy/types';
import { translator, type Lang, type MessageKey } from '../locales/i18n.js';

const MENU: [command: string, description: MessageKey][] = [
  ['start', 'cmd_start'],
  ['help', 'cmd_help'],
  ['connect', 'cmd_connect'],
  ['filter', 'cmd_filter'],
  ['filters', 'cmd_filters'],
  ['status', 'cmd_status'],
  ['pause', 'cmd_pause'],
  ['resume', 'cmd_resume'],
  ['settings', 'cmd_settings'],
  ['books', 'cmd_books'],
  ['staking', 'cmd_staking'],
  ['item', 'cmd_item'],
  ['event', 'cmd_event'],
  ['sports', 'cmd_sports'],
  ['bookmakers', 'cmd_bookmakers'],
  ['glossary', 'cmd_glossary'],
  ['muted', 'cmd_muted'],
  ['open', 'cmd_open'],
  ['pnl', 'cmd_pnl'],
  ['export', 'cmd_export'],
  ['clv', 'cmd_clv'],
  ['forget', 'cmd_forget'],
  ['cancel', 'cmd_cancel'],
];

/** Every command the bot answers (the menu plus the admin's /stats). */
export const KNOWN_COMMANDS: ReadonlySet<string> = new Set([...MENU.map(([c]) => c), 'stats', 'book']);

/** The command menu in one language, for setMyCommands. */
export function commandMenu(lang: Lang): BotCommand[] {
  const t = translator(lang);
  return MENU.map(([command, key]) => ({ command, description: t(key) }));
}

/**
 * The command a message starts with ("/filter@my_bot x" → "filter"), or undefined. Used to let a
 * command typed in the middle of a flow end that flow.
 */
export function leadingCommand(text: string | undefined): string | undefined {
  const m = /^\/([A-Za-z0-9_]{1,32})(?:@\w+)?(?:\s|$)/.exec(text ?? '');
  return m?.[1]?.toLowerCase();
}
