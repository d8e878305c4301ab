/**
 * `npm run sandbox`: runs the sandbox on SANDBOX_PORT (default 8787; SANDBOX_SEED, default 1) and
 * prints the settings that point the bot at it, ready to paste into `.env`.
 */
import { startSandbox } from './index.js';

function intFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`${name}: expected a whole number from ${min} to ${max}`);
    process.exit(2);
  }
  return n;
}

const port = intFromEnv('SANDBOX_PORT', 8787, 0, 65535);
const seed = intFromEnv('SANDBOX_SEED', 1, 0, 2 ** 31 - 1);

const sandbox = await startSandbox({ port, seed });

console.log(`Sandbox Data Service listening on ${sandbox.origin} (seed ${seed})`);
console.log('');
console.log('# Paste into .env to point the bot at the sandbox:');
for (const [name, url] of Object.entries(sandbox.urls)) console.log(`${name}=${url}`);
console.log('# The sandbox accepts both "bb-<key>" and the bare key as {account}:');
console.log('BB_ACCOUNT_PREFIX=bb-');
console.log('');
console.log('# Demo key pair (enter it in the bot with /connect):');
console.log(`access key: ${sandbox.demoKey.accessKey}`);
console.log(`secret key: ${sandbox.demoKey.secret}`);
console.log('');
console.log('Limits: 20 tokens/h per key, 20 filter writes/h and 30 item reads/min per key and host, 24 dictionary reads/day per address.');
console.log('Press Ctrl+C to stop.');

let stopping = false;
function stop(signal: string): void {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the sandbox…`);
  sandbox.close().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error('sandbox did not close cleanly:', err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
process.once('SIGINT', () => stop('SIGINT'));
process.once('SIGTERM', () => stop('SIGTERM'));
