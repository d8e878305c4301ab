/**
 * The offline playground: the sandbox Data Service, the local Bot API stand-in and the real bot
 * (the production long-polling path, through TELEGRAM_API_ROOT), with a chat in the terminal.
 * Bot messages print with their buttons numbered; a typed number presses a button, anything else
 * is sent as a message. Photos and documents (/pnl's chart, /export's CSV) are saved in the data
 * folder and their path printed.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { startApp, type App } from '../app.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { startFakeTelegram, type FakeTelegram, type SentMessage } from '../fake-telegram/server.js';
import { formatButtons, htmlToTerminal, numberButtons, type ButtonRef } from './render.js';

export interface PlaygroundOptions {
  input: Readable;
  output: Writable;
  /** ANSI styling; on for a terminal, off for pipes and tests. */
  ansi?: boolean;
  /** Where the bot keeps its data; a fresh temporary folder by default. */
  dataDir?: string;
  /** Seconds between reads of a subscription (the limits may make it longer). */
  pollIntervalSeconds?: number;
  /** The person in the chat. */
  user?: { id: number; first_name: string; language_code?: string };
}

export interface Playground {
  readonly sandbox: Sandbox;
  readonly telegram: FakeTelegram;
  readonly app: App;
  readonly logFile: string;
  /** Sends a line as the user would type it (a number presses a button of the latest keyboard). */
  type(line: string): void;
  stop(): Promise<void>;
}

export async function startPlayground(opts: PlaygroundOptions): Promise<Playground> {
  const ansi = opts.ansi ?? false;
  const user = opts.user ?? { id: 1001, first_name: 'You', language_code: 'en' };
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'bb-playground-')));
  const logFile = join(dataDir, 'bot.log');
  const print = (text: string) => opts.output.write(text + '\n');

  const sandbox = await startSandbox({});
  const telegram = await startFakeTelegram({});
  const config = loadConfig({
    ...sandbox.urls,
    BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    POLL_INTERVAL_SECONDS: String(opts.pollIntervalSeconds ?? 5),
  });
  const logger = createLogger(config.LOG_LEVEL, pino.destination({ dest: logFile, sync: false }));
  const app = await startApp({ config: { ...config, BOT_TOKEN: telegram.token }, logger });

  // The latest message that carried buttons; a typed number presses one of them.
  let keyboard: { message: SentMessage; buttons: ButtonRef[] } | undefined;
  const show = (message: SentMessage, label: string) => {
    const buttons = numberButtons(message.reply_markup);
    const head = ansi ? `\x1b[2m── ${label} ──\x1b[22m` : `── ${label} ──`;
    print(`${head}\n${htmlToTerminal(message.text, { ansi })}`);
    // A photo (/pnl's chart) or a document (/export's CSV): saved beside the data, and said where.
    if (message.media) {
      const file = join(dataDir, message.media.fileName.replace(/[^\w.-]/g, '_'));
      writeFileSync(file, message.media.bytes);
      print(`  (${message.media.kind} saved to ${file})`);
    }
    if (buttons.length > 0) {
      print(formatButtons(message.reply_markup));
      keyboard = { message, buttons };
    }
  };
  const unsubscribe = telegram.onActivity((event) => {
    if (event.kind === 'sent' && event.message) show(event.message, 'bot');
    else if (event.kind === 'edited' && event.message) show(event.message, 'bot (edited)');
    else if (event.kind === 'callback_answer' && event.text) print(`  (${event.text})`);
  });

  const type = (raw: string) => {
    const line = raw.trim();
    if (line === '') return;
    const pressed = /^\d{1,2}$/.test(line) ? keyboard?.buttons.find((b) => b.number === Number(line)) : undefined;
    if (!pressed || !keyboard) {
      telegram.sendText(user, line);
      return;
    }
    try {
      telegram.pressButton(user, keyboard.message, pressed.callbackData);
    } catch {
      // The message was edited since and no longer carries that button, as on a phone.
      print('  (that button is gone: the message changed; use the newest buttons)');
    }
  };

  const rl = createInterface({ input: opts.input, terminal: false });
  rl.on('line', type);

  const demo = sandbox.demoKey;
  print(
    [
      'Playground: the real bot, a local Data Service sandbox and a local Telegram stand-in. Nothing leaves this machine.',
      `You are "${user.first_name}" (Telegram id ${user.id}). Type a message and press Enter; type a number to press a button.`,
      `Try: /start, then /connect ${demo.accessKey} ${demo.secret}, then /filter arbs_prematch, then wait for alerts.`,
      'Under an alert, ✅ Placed records it; /open settles, /pnl shows the figures and a chart (saved as a PNG), /export a CSV.',
      `The bot's log: ${logFile}. Ctrl-C quits.`,
    ].join('\n'),
  );

  let stopped: Promise<void> | undefined;
  return {
    sandbox,
    telegram,
    app,
    logFile,
    type,
    stop() {
      stopped ??= (async () => {
        rl.close();
        unsubscribe();
        await app.stop(3_000);
        await telegram.close();
        await sandbox.close();
        logger.flush();
      })();
      return stopped;
    },
  };
}
