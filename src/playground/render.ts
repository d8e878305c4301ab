/**
 * Turns what the bot sends (Telegram HTML and inline keyboards) into terminal text, so the
 * playground reads like the chat would on a phone.
 */

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#039;': "'" };

export interface RenderStyle {
  /** ANSI colours and bold; off when the output is not a terminal (tests, pipes). */
  ansi: boolean;
}

/** Telegram HTML → plain or ANSI-styled text. Unknown tags are dropped, entities decoded. */
export function htmlToTerminal(html: string, style: RenderStyle): string {
  const on = (code: string) => (style.ansi ? `\x1b[${code}m` : '');
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<(b|strong)>/gi, on('1'))
    .replace(/<\/(b|strong)>/gi, on('22'))
    .replace(/<(i|em)>/gi, on('3'))
    .replace(/<\/(i|em)>/gi, on('23'))
    .replace(/<(s|strike|del)>/gi, on('9'))
    .replace(/<\/(s|strike|del)>/gi, on('29'))
    .replace(/<(code|pre)[^>]*>/gi, on('36'))
    .replace(/<\/(code|pre)>/gi, on('39'))
    .replace(/<a\s+href="([^"]*)"[^>]*>(.*?)<\/a>/gi, '$2 ($1)')
    .replace(/<\/?[a-z][^>]*>/gi, '')
    .replace(/&(amp|lt|gt|quot|#0?39);/g, (m) => ENTITIES[m] ?? m);
}

export interface ButtonRef {
  number: number;
  text: string;
  callbackData: string;
}

/** Reads an inline keyboard (as sent to the Bot API) into numbered buttons, in reading order. */
export function numberButtons(replyMarkup: unknown, start = 1): ButtonRef[] {
  if (typeof replyMarkup !== 'object' || replyMarkup === null) return [];
  const rows = (replyMarkup as { inline_keyboard?: unknown }).inline_keyboard;
  if (!Array.isArray(rows)) return [];
  const out: ButtonRef[] = [];
  for (const row of rows) {
    if (!Array.isArray(row)) continue;
    for (const button of row) {
      const b = button as { text?: unknown; callback_data?: unknown };
      if (typeof b.text === 'string' && typeof b.callback_data === 'string') {
        out.push({ number: start + out.length, text: b.text, callbackData: b.callback_data });
      }
    }
  }
  return out;
}

/**
 * The buttons laid out as the keyboard's rows: `[1 Pause] [2 Edit]`, or with the message's number
 * before each, `[3.1 Pause] [3.2 Edit]`; numbering as `numberButtons`.
 */
export function formatButtons(replyMarkup: unknown, start = 1, prefix = ''): string {
  const rows = (replyMarkup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  if (!Array.isArray(rows)) return '';
  let next = start;
  const lines: string[] = [];
  for (const row of rows) {
    const cells = numberButtons({ inline_keyboard: [row] }, next).map((b) => `[${prefix}${b.number} ${b.text}]`);
    next += cells.length;
    if (cells.length > 0) lines.push('  ' + cells.join(' '));
  }
  return lines.join('\n');
}
