/**
 * The offline playground: the sandbox Data Service, the local Bot API stand-in and the real bot
 * (the production long-polling path, through TELEGRAM_API_ROOT), with a chat in the terminal.
 * Bot messages print with their buttons numbered (see `keyboards.ts` for which number presses
 * what); `@bot words` asks inline mode; anything else is sent as a message. The temporary data
 * folder (it holds the encryption key) is removed at stop. Photos and documents (/pnl's chart,
 * /export's CSV: the user's ledger) are saved, their path printed, in a temporary folder of this
 * run's own, removed at stop too: nothing of a session is left for the next one to find.
 * The Mini App is served on a free loopback port; its link, signed for the user as Telegram would
 * sign it, is printed at start and under every button that opens it (/app, /pnl, /filters, /books).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig, type Config } from '../config.js';
import { createLogger } from '../logger.js';
import { startApp, type App } from '../app.js';
import { buildAssetProvider } from '../miniapp/build-assets.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { startFakeTelegram, type FakeTelegram, type InlineAnswer, type SentMessage } from '../fake-telegram/server.js';
import { KeyboardRouter } from './keyboards.js';
import { appButtons, freeLoopbackPort, signedAppUrl } from './mini-app-link.js';
import { formatButtons, htmlToTerminal } from './render.js';

export interface PlaygroundOptions {
  input: Readable;
  output: Writable;
  /** ANSI styling; on for a terminal, off for pipes and tests. */
  ansi?: boolean;
  /** Where the bot keeps its data; a fresh temporary folder by default (removed at stop). */
  dataDir?: string;
  /** A floor between reads of a subscription, s; by default none, as shipped (the read limit paces). */
  pollIntervalSeconds?: number;
  /** The person in the chat. */
  user?: { id: number; first_name: string; language_code?: string };
  /** The port of the bot's HTTP server (the Mini App, /healthz) on 127.0.0.1; a free one by default. */
  httpPort?: number;
}

export interface Playground {
  readonly sandbox: Sandbox;
  readonly telegram: FakeTelegram;
  readonly app: App;
  readonly config: Config;
  readonly dataDir: string;
  /** Where /pnl's charts and /export's CSVs are saved: this run's own temporary folder, removed at stop. */
  readonly mediaDir: string;
  readonly logFile: string;
  /** Sends a line as the user would type it (`2` / `3.2` press buttons, `@bot words` asks inline). */
  type(line: string): void;
  stop(): Promise<void>;
}

export async function startPlayground(opts: PlaygroundOptions): Promise<Playground> {
  const ansi = opts.ansi ?? false;
  const user = opts.user ?? { id: 1001, first_name: 'You', language_code: 'en' };
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'bb-playground-')));
  const logFile = join(dataDir, 'bot.log');
  const mediaDir = await mkdtemp(join(tmpdir(), 'bb-playground-files-'));
  const print = (text: string) => opts.output.write(text + '\n');

  const sandbox = await startSandbox({});
  const telegram = await startFakeTelegram({});
  const httpPort = opts.httpPort ?? (await freeLoopbackPort());
  const appUrl = `http://127.0.0.1:${httpPort}/app/`;
  const config = loadConfig({
    ...sandbox.urls,
    BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    // The Mini App on the bot's own HTTP server, on loopback: a browser on this machine opens it over http.
    HTTP_PORT: String(httpPort),
    MINI_APP_URL: appUrl,
    ...(opts.pollIntervalSeconds !== undefined && { POLL_INTERVAL_SECONDS: String(opts.pollIntervalSeconds) }),
  });
  const logger = createLogger(config.LOG_LEVEL, pino.destination({ dest: logFile, sync: false }));
  let app: App;
  try {
    // The Mini App's page built in memory from src/, so the playground needs no `npm run build`.
    app = await startApp({ config: { ...config, BOT_TOKEN: telegram.token }, logger, miniAppAssets: await buildAssetProvider() });
  } catch (err) {
    // A start that fails leaves nothing behind either (the folder holds an encryption key).
    await telegram.close();
    await sandbox.close();
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
    await rm(mediaDir, { recursive: true, force: true });
    throw err;
  }

  const saveMedia = (media: NonNullable<SentMessage['media']>) => {
    const file = join(mediaDir, `${Date.now()}-${media.fileName.replace(/[^\w.-]/g, '_')}`);
    writeFileSync(file, media.bytes);
    print(`  (${media.kind} saved to ${file})`);
  };
  const keyboards = new KeyboardRouter();
  const dim = (text: string) => (ansi ? `\x1b[2m${text}\x1b[22m` : text);
  const printedTexts = new Map<string, string>();
  const show = (message: SentMessage, edited: boolean) => {
    const before = keyboards.open;
    const keyboard = keyboards.shown(message);
    const key = `${message.chat_id}:${message.message_id}`;
    const sameText = printedTexts.get(key) === message.text;
    printedTexts.set(key, message.text);
    // Bounded for a long session: the oldest messages are long off the screen.
    if (printedTexts.size > 5_000) printedTexts.delete(printedTexts.keys().next().value ?? '');
    if (edited && !keyboard && sameText) {
      // Only the buttons went (an answered question): say so in a line, not the whole text again.
      print(dim(`  (${keyboards.tagOf(message) ?? 'a message'}: answered, its buttons are gone)`));
      return;
    }
    const label = `${edited ? 'bot (edited)' : 'bot'}${keyboard ? ` · ${keyboard.tag}` : ''}${keyboard?.alert ? ' · alert' : ''}`;
    print(`${dim(`── ${label} ──`)}\n${htmlToTerminal(message.text, { ansi })}`);
    if (message.media) saveMedia(message.media);
    // In Telegram these open the page already signed; here the button's link is printed, signed the same way.
    for (const b of appButtons(message.reply_markup, appUrl)) print(`  [${b.text}] ${signedAppUrl(b.url, user, telegram.token, Date.now())}`);
    if (!keyboard) return;
    const bare = keyboards.bare(keyboard);
    // What the brackets show is what to type: `2`, `3.2`, or `#3.2` where a typed 3.2 would be an answer.
    print(formatButtons(message.reply_markup, 1, bare ? '' : `${keyboard.takesNumber ? '#' : ''}${keyboard.tag}.`));
    if (keyboard.takesNumber && keyboards.open === keyboard && before !== keyboard) {
      print(dim(`  (type your number as the answer; #${keyboard.tag}.1 presses the first button)`));
    }
  };
  const showInline = (query: string, answer: InlineAnswer) => {
    const lines = [dim(`── inline results for “${query}” (in Telegram: a menu above the keyboard; a tap posts the card) ──`)];
    answer.results.forEach((r, i) => {
      const title = typeof r.title === 'string' ? r.title : String(r.id);
      const description = typeof r.description === 'string' ? ` — ${r.description}` : '';
      lines.push(`  ${i + 1}. ${htmlToTerminal(title, { ansi })}${dim(description)}`);
    });
    if (answer.results.length === 0) lines.push('  (no results)');
    const button = answer.button as { text?: unknown } | undefined;
    if (typeof button?.text === 'string') lines.push(`  [${button.text}] (opens this chat)`);
    print(lines.join('\n'));
  };
  const inlineQueries = new Map<string, string>();
  const unsubscribe = telegram.onActivity((event) => {
    if (event.kind === 'sent' && event.message) show(event.message, false);
    else if (event.kind === 'edited' && event.message) show(event.message, true);
    else if (event.kind === 'callback_answer' && event.text) print(`  (${event.text})`);
    else if (event.kind === 'inline_answer' && event.inline) {
      const query = inlineQueries.get(event.inline.inline_query_id);
      inlineQueries.delete(event.inline.inline_query_id);
      if (query !== undefined) showInline(query, event.inline);
    }
  });

  const inlinePrefix = new RegExp(`^@(?:bot|${telegram.botUser.username})(?:\\s+(.*))?$`, 'is');
  const type = (raw: string) => {
    const line = raw.trim();
    if (line === '') return;
    const inline = inlinePrefix.exec(line);
    if (inline) {
      const query = (inline[1] ?? '').trim();
      inlineQueries.set(telegram.inlineQuery(user, query).inline_query?.id ?? '', query);
      return;
    }
    const route = keyboards.route(line);
    if (route.kind === 'no-button') {
      print(`  (message ${route.tag} has no button ${route.number} now; the numbers in [brackets] are what to type)`);
      return;
    }
    if (route.kind === 'text') {
      if (line.startsWith('/')) keyboards.acted({ command: true });
      telegram.sendText(user, line);
      if (route.pressInstead) print(dim(`  (sent as your answer; ${route.pressInstead} presses that button instead)`));
      return;
    }
    try {
      telegram.pressButton(user, route.keyboard.message, route.button.callbackData);
      keyboards.acted({ pressed: route.keyboard });
    } catch {
      // The message was edited since and no longer carries that button, as on a phone.
      print('  (that button is gone: the message changed; use the newest buttons)');
    }
  };

  const validFor = `${Math.round(config.MINI_APP_MAX_AGE_SECONDS / 60)} min`;
  const appLine = `Mini App (your ledger, filters and bookmakers on one screen), signed for you as Telegram would sign it, valid for ${validFor} (/app prints a fresh link): ${signedAppUrl(appUrl, user, telegram.token, Date.now())}`;

  const rl = createInterface({ input: opts.input, terminal: false });
  rl.on('line', type);

  const demo = sandbox.demoKey;
  print(
    [
      'Playground: the real bot, a local Data Service sandbox and a local Telegram stand-in. Nothing leaves this machine.',
      `You are "${user.first_name}" (Telegram id ${user.id}). Type a message and press Enter.`,
      'Buttons: a number presses a button of the open question ([2 …]); every message with buttons has a number, and 3.2 presses its second button (alerts show theirs that way). Where a question takes a number, a typed number (2, 1.5) is the answer, and #3.2 presses.',
      `Inline mode: @bot words (as @${telegram.botUser.username} words in any Telegram chat; on a real bot, switch it on with /setinline in @BotFather).`,
      `Try: /start, then /connect ${demo.accessKey} ${demo.secret}, then /filter arbs_prematch, then wait for alerts.`,
      'Under an alert, ✅ Placed records it; /open settles, /pnl shows the figures and a chart (saved as a PNG), /export a CSV.',
      `The bot's log: ${logFile}; charts and CSVs: ${mediaDir} (both folders are removed when you quit). Ctrl-C quits.`,
      appLine,
    ].join('\n'),
  );

  let stopped: Promise<void> | undefined;
  return {
    sandbox,
    telegram,
    app,
    config,
    dataDir,
    mediaDir,
    logFile,
    type,
    stop() {
      stopped ??= (async () => {
        rl.close();
        unsubscribe();
        try {
          await app.stop(3_000);
          await telegram.close();
          await sandbox.close();
          logger.flush();
        } finally {
          if (ownDir) await rm(dataDir, { recursive: true, force: true });
          await rm(mediaDir, { recursive: true, force: true });
        }
      })();
      return stopped;
    },
  };
}
