/**
 * `npm run cluster` (after the build): the bot as a cluster on this machine, in the foreground
 * (cluster-run.ts says how). Reads `.env` like `npm start`; each process runs `node` with the
 * flags of `npm start` on dist/main.js. Exit code 0 when every process stopped cleanly, 1 when one
 * failed, 2 for a bad setting or argument.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { redactSecrets } from '../logger.js';
import { knownSecrets, secretsOfSettings } from '../log-redaction.js';
import { runCluster } from './cluster-run.js';

const USAGE = 'usage: npm run cluster  (settings from .env or the environment: WORKERS, default 2; BB_LOCAL_ADDRESSES, one per worker; REDIS_URL, else a private redis-server)';

/** `npm start`'s Node flags, from package.json, so the cluster's processes run exactly as the bot does. */
function startFlags(root: string): string[] {
  const manifest = z.object({ scripts: z.object({ start: z.string() }) }).parse(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
  return manifest.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length > 0) {
    console.error(args[0] === '--help' || args[0] === '-h' ? USAGE : `unknown argument ${args[0]}\n${USAGE}`);
    return 2;
  }
  if (existsSync('.env')) process.loadEnvFile('.env');
  // Cut from every line this command prints or logs, by value.
  knownSecrets.pin(...secretsOfSettings(process.env));
  const dist = dirname(dirname(fileURLToPath(import.meta.url)));
  const env = { ...process.env };
  // Pretty lines for a person at a terminal (the children's output is a pipe, which would mean JSON).
  if (process.stdout.isTTY && !env.LOG_FORMAT) env.LOG_FORMAT = 'pretty';
  return runCluster({
    env,
    command: { file: process.execPath, args: [...startFlags(dirname(dist)), join(dist, 'main.js')] },
    print: (line) => process.stdout.write(`${line}\n`),
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`cluster failed: ${redactSecrets(err instanceof Error ? err.message : String(err))}`);
    process.exit(1);
  },
);
