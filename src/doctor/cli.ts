/**
 * The doctor's command line: `npm run doctor [-- --fix] [-- --key ACCESS_KEY]`. Reads `.env` like
 * `npm start`. The secret for `--key` comes from DOCTOR_SECRET_KEY or stdin (a prompt without
 * echo at a terminal) and never from the command line, where it would stay in the shell history
 * and the process list. Exit code 0 when every check passed, 1 otherwise, 2 for bad arguments.
 */
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { redactSecrets } from '../logger.js';
import { knownSecrets, secretsOfSettings } from '../log-redaction.js';
import { runDoctor } from './doctor.js';

const USAGE = 'usage: npm run doctor [-- --fix] [-- --key ACCESS_KEY]  (the secret: a prompt, stdin or DOCTOR_SECRET_KEY)';

interface Args {
  fix: boolean;
  key?: string;
}

function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = { fix: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a === '--fix') args.fix = true;
    else if (a === '--key') {
      const key = argv[++i];
      if (key === undefined || key.startsWith('--')) return '--key needs the access key after it';
      args.key = key;
    } else if (a.startsWith('--key=')) args.key = a.slice('--key='.length);
    else if (a === '--help' || a === '-h') return USAGE;
    else if (args.key !== undefined && !a.startsWith('--')) {
      return 'the secret is never read from the command line (shell history, process list): paste it at the prompt, pipe it on stdin or set DOCTOR_SECRET_KEY';
    } else return `unknown argument ${a.startsWith('--') ? a : '(not shown)'}\n${USAGE}`;
  }
  return args;
}

/** A line from the terminal without echoing it. */
function askHidden(question: string): Promise<string> {
  process.stdout.write(question);
  const muted = new Writable({ write: (_chunk, _enc, done) => done() });
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  return new Promise((resolve) => {
    rl.question('', (answer) => {
      rl.close();
      process.stdout.write('\n');
      resolve(answer);
    });
  });
}

function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  return new Promise((resolve) => rl.question(question, (a) => (rl.close(), resolve(a))));
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split('\n')[0] ?? '';
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    console.error(args);
    return args === USAGE ? 0 : 2;
  }
  if (existsSync('.env')) process.loadEnvFile('.env');
  // Cut from every line this command prints or logs, by value.
  knownSecrets.pin(...secretsOfSettings(process.env));
  const tty = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const ok = await runDoctor({
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    fixWebhook: async () => args.fix || (tty && /^y(es)?$/i.test((await ask('  a webhook blocks long polling: delete it now? [y/N] ')).trim())),
    ...(args.key !== undefined && {
      key: {
        accessKey: args.key,
        secret: async () => {
          const fromEnv = process.env.DOCTOR_SECRET_KEY;
          if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
          return process.stdin.isTTY === true ? askHidden('  secret key (not shown): ') : readStdin();
        },
      },
    }),
  });
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`doctor failed: ${redactSecrets(err instanceof Error ? err.message : String(err))}`);
    process.exit(1);
  },
);
