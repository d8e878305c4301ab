/**
 * Start-up and graceful shutdown; nothing else. `npm start` (after the build) runs
 * `node dist/main.js` in the foreground so SIGTERM reaches this process directly. A start that
 * fails ends with one line naming the setting to fix, and exit code 1.
 */
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, defaultLogFormat, redactSecrets } from './logger.js';
import { knownSecrets, secretsOfSettings } from './log-redaction.js';
import { startApp } from './app.js';
import { installCrashLog } from './crash-log.js';
import { describeStartupError } from './operator/startup-errors.js';

let config: Config | undefined;

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  // Before the first log line: every logger of the process cuts these by value.
  knownSecrets.pin(...secretsOfSettings(config));
  // A cluster worker reads the service and never talks to Telegram: it runs without the token.
  if (config.BOT_TOKEN === undefined && config.ROLE !== 'worker') {
    console.error('BOT_TOKEN: expected the token from @BotFather (set it in .env or the environment)');
    process.exit(1);
  }
  const logger = createLogger(config.LOG_LEVEL, undefined, { format: config.LOG_FORMAT ?? defaultLogFormat() });
  installCrashLog(logger);
  const app = await startApp({ config, logger });
  logger.info('bot started');

  let signalled = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long: exiting');
      process.exit(1);
    }, 20_000);
    force.unref();
    app.stop(10_000).then(
      () => {
        logger.info('stopped cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  // One line on stderr, whatever the log format: the logger may not exist yet, and an operator
  // reads this first. It never carries a secret.
  console.error(
    config
      ? describeStartupError(err, config)
      : `start failed: ${redactSecrets(err instanceof Error ? err.message : String(err))}`,
  );
  process.exit(1);
});
