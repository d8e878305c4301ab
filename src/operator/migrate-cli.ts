/**
 * The command line of `npm run migrate -- --to redis|lowdb [--force]` (see `migrate.ts`). Reads
 * `.env` like `npm start`. The result goes to stdout, the stores' warnings (a broken record left
 * out) to stderr. Exit code 0 when copied, 1 when refused or failed, 2 for bad arguments.
 */
import { existsSync } from 'node:fs';
import { createLogger, redactSecrets } from '../logger.js';
import { knownSecrets, secretsOfSettings } from '../log-redaction.js';
import { MIGRATE_USAGE, parseMigrateArgs, runMigrate } from './migrate.js';

async function main(): Promise<number> {
  const args = parseMigrateArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    console.error(args);
    return args === MIGRATE_USAGE ? 0 : 2;
  }
  if (existsSync('.env')) process.loadEnvFile('.env');
  // Cut from every line this command prints or logs, by value.
  knownSecrets.pin(...secretsOfSettings(process.env));
  return runMigrate({
    args,
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    logger: createLogger('warn', process.stderr, { format: 'pretty', colorize: process.stderr.isTTY === true }),
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`migrate failed: ${redactSecrets(err instanceof Error ? err.message : String(err))}`);
    process.exit(1);
  },
);
