/**
 * The real app (`startApp`) against the sandbox Data Service and the fake Bot API on loopback,
 * with a fresh DATA_DIR and key: what the end-to-end benchmarks start, and how they stop it.
 */
import { randomBytes } from 'node:crypto';
import { startApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startFakeTelegram, type FakeTelegram, type FakeTelegramOptions } from '../../src/fake-telegram/server.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { benchLogger, tempDataDir } from './setup.js';

export interface AppWorld {
  sandbox: Sandbox;
  telegram: FakeTelegram;
  config: Config;
  app: App;
  /** Stops the app (draining up to 3 s), the fakes and the logger, and removes DATA_DIR. */
  close(): Promise<void>;
}

export async function startAppWorld(opts: {
  name: string;
  sandbox: SandboxOptions;
  telegram?: FakeTelegramOptions;
  env?: Record<string, string>;
}): Promise<AppWorld> {
  const data = await tempDataDir(opts.name);
  const sandbox = await startSandbox(opts.sandbox);
  const telegram = await startFakeTelegram(opts.telegram ?? {});
  const logger = benchLogger();
  const config = loadConfig({
    ...sandbox.urls,
    BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    DATA_DIR: data.dir,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ...opts.env,
  });
  const app = await startApp({ config: { ...config, BOT_TOKEN: telegram.token }, logger });
  return {
    sandbox,
    telegram,
    config,
    app,
    close: async () => {
      await app.stop(3_000);
      await telegram.close();
      await sandbox.close();
      logger.flush();
      await data.remove();
    },
  };
}
