/**
 * Settings: the environment (and an optional `.env`) turned into typed, validated values.
 * Every default lives here and nowhere else; `.env.example` lists each name with its default.
 */
import { z } from 'zod';

/** Whether a URL's host is this machine (127.0.0.0/8, ::1, localhost): the only hosts spoken to over plain http. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * A service or Bot API address: https, or http to this machine only (the playground, the tests,
 * a local Bot API server). Over plain http to another host, the access keys' secrets, the tokens
 * and the bot token would cross the network readable.
 */
const url = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .pipe(z.url({ protocol: /^https?$/, error: 'an http(s) URL' }))
    .refine((u) => new URL(u).protocol === 'https:' || isLoopbackHost(new URL(u).hostname), {
      error: 'an https:// URL (plain http:// only to this machine: 127.0.0.1, ::1 or localhost)',
    })
    .transform((u) => u.replace(/\/+$/, ''));

const int = (fallback: number, min: number, max: number) =>
  z.coerce
    .number({ error: `a whole number from ${min} to ${max}` })
    .int({ error: `a whole number from ${min} to ${max}` })
    .min(min, { error: `a whole number from ${min} to ${max}` })
    .max(max, { error: `a whole number from ${min} to ${max}` })
    .default(fallback);

const idList = z
  .string()
  .trim()
  .default('')
  .refine((s) => s === '' || /^\d+(\s*,\s*\d+)*$/.test(s), {
    error: 'a comma-separated list of numeric Telegram user ids',
  })
  .transform((s) => (s === '' ? [] : s.split(',').map((x) => Number(x.trim()))));

/** Empty strings in the environment mean "not set", as users expect from `.env` files. */
const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((s) => (s === undefined || s === '' ? undefined : s));

const POLL_ERROR = 'a whole number of seconds from 0 to 3600 (empty or 0: no floor, read as often as the limits allow)';
const PORT_ERROR = 'a TCP port from 1 to 65535 (leave empty to turn it off)';

export const configSchema = z.object({
  BOT_TOKEN: optionalString.pipe(
    z
      .string()
      .regex(/^\d+:[\w-]{20,}$/, { error: 'a bot token from @BotFather, like 123456:ABC-DEF…' })
      .optional(),
  ),
  TELEGRAM_API_ROOT: url('https://api.telegram.org'),
  TELEGRAM_WEBHOOK_URL: optionalString.pipe(
    z
      .url({ protocol: /^https$/, error: 'a public https:// URL where Telegram can post updates (leave empty for long polling)' })
      .optional(),
  ),
  TELEGRAM_WEBHOOK_SECRET: optionalString.pipe(
    z
      .string()
      .regex(/^[\w-]{16,256}$/, { error: '16 to 256 letters, digits, "_" or "-" (openssl rand -hex 32)' })
      .optional(),
  ),
  DATA_DIR: z.string().trim().min(1, { error: 'a directory path' }).default('./data'),
  ENCRYPTION_KEY: optionalString.pipe(
    z
      .string()
      .regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, {
        error: '32 bytes as 64 hex characters or 44 base64 characters (openssl rand -hex 32)',
      })
      .optional(),
  ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  LOG_FORMAT: optionalString.pipe(
    z.enum(['pretty', 'json'], { error: 'pretty or json (leave empty: pretty on a terminal, json otherwise)' }).optional(),
  ),

  BB_AUTH_URL: url('https://breaking-bet.com'),
  BB_DICTS_URL: url('https://dicts.api.breaking-bet.com'),
  BB_ARBS_PREMATCH_URL: url('https://arbs.prematch.api.breaking-bet.com'),
  BB_ARBS_LIVE_URL: url('https://arbs.live.api.breaking-bet.com'),
  BB_MIDDLES_PREMATCH_URL: url('https://middles.prematch.api.breaking-bet.com'),
  BB_MIDDLES_LIVE_URL: url('https://middles.live.api.breaking-bet.com'),
  BB_VALUEBETS_PREMATCH_URL: url('https://valuebets.prematch.api.breaking-bet.com'),
  BB_VALUEBETS_LIVE_URL: url('https://valuebets.live.api.breaking-bet.com'),
  BB_PATH_FORM: z.enum(['A', 'B'], { error: 'A or B' }).default('A'),
  BB_ACCOUNT_PREFIX: z
    .string()
    .trim()
    .regex(/^[\w-]*$/, { error: 'letters, digits, "_" or "-" (empty for the bare access key)' })
    .default('bb-'),
  BB_REQUEST_TIMEOUT_MS: int(10_000, 500, 120_000),

  LIMIT_TOKENS_PER_HOUR: int(20, 1, 100_000),
  LIMIT_FILTERS_PER_HOUR: int(20, 1, 100_000),
  LIMIT_ITEMS_PER_MINUTE: int(30, 1, 100_000),
  LIMIT_DICTS_PER_DAY: int(24, 1, 100_000),
  LIMIT_SCOPE: z.enum(['key', 'address'], { error: 'key or address' }).default('key'),
  LIMIT_SCOPE_TOKENS: z.enum(['key', 'address'], { error: 'key or address' }).default('key'),

  // An arb back within this many minutes after its alert said "Gone" revives that message instead of a new alert.
  REVIVE_MINUTES: int(30, 1, 1440),

  // Empty or 0: no floor, every subscription is read as often as the read limit allows.
  POLL_INTERVAL_SECONDS: optionalString
    .pipe(
      z
        .string()
        .regex(/^\d{1,4}$/, { error: POLL_ERROR })
        .transform(Number)
        .refine((n) => n <= 3600, { error: POLL_ERROR })
        .optional(),
    )
    .transform((n) => n ?? 0),

  // The ledger's settle digest: positions whose event started this many hours ago and are unsettled.
  SETTLE_DIGEST_HOURS: int(6, 1, 168),
  // At most this many positions per user's ledger (/archive moves settled ones out into a file).
  LEDGER_MAX_POSITIONS: int(20_000, 10, 1_000_000),

  // A leg's odds older than this are marked stale (⚠️) in alerts, live and prematch; each user may set their own (/settings stale).
  STALE_LEG_SECONDS: int(60, 1, 86_400),
  STALE_LEG_SECONDS_PREMATCH: int(900, 1, 86_400),

  ALLOWED_USER_IDS: idList,
  ADMIN_USER_IDS: idList,
  HTTP_PORT: optionalString.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, { error: PORT_ERROR })
      .transform(Number)
      .refine((n) => n >= 1 && n <= 65535, { error: PORT_ERROR })
      .optional(),
  ),
  // The Mini App (issue 34): the public https:// URL that reaches HTTP_PORT's /app/; empty = off
  // (no menu button, no button mentions it).
  MINI_APP_URL: optionalString.pipe(z.url({ protocol: /^https?$/, error: 'an https:// URL that reaches HTTP_PORT (e.g. https://bot.example.com/app/)' }).optional()),
  // initData signed longer ago than this is refused (Telegram signs it when the app opens).
  MINI_APP_MAX_AGE_SECONDS: int(3600, 60, 86_400),
  // On a public interface /healthz shows its reasons and details only with this bearer token.
  HEALTH_TOKEN: optionalString.pipe(
    z
      .string()
      .regex(/^[\w-]{16,256}$/, { error: '16 to 256 letters, digits, "_" or "-" (openssl rand -hex 32)' })
      .optional(),
  ),
  // Loopback by default: the operator port is for a local scraper or a reverse proxy; the image
  // sets 0.0.0.0 so Docker's port mapping reaches it.
  HTTP_HOST: z
    .string()
    .trim()
    .default('127.0.0.1')
    .transform((s) => (s === '' ? '127.0.0.1' : s))
    .pipe(z.union([z.ipv4(), z.ipv6(), z.literal('localhost')], { error: 'an IP address to listen on, like 127.0.0.1 or 0.0.0.0' })),

  // The cluster (docs/cluster.md): empty runs the embedded bot (one process, lowdb, no Redis).
  // Whoever can write to the bot's Redis can read the sealed secrets and fill the alert stream: one
  // on another host must ask for a password (and take rediss:// across networks).
  REDIS_URL: optionalString.pipe(
    z
      .url({ protocol: /^rediss?$/, error: 'a redis:// or rediss:// URL, like redis://127.0.0.1:6379 (leave empty for one process without Redis)' })
      .refine((u) => new URL(u).password !== '' || isLoopbackHost(new URL(u).hostname), {
        error: 'a URL with the Redis password, like redis://:password@host:6379 (rediss:// for TLS): a Redis on another host must not be open to anyone who reaches it',
      })
      .optional(),
  ),
  // redis:// to another host crosses a network in clear text (the password, the sealed secrets,
  // every alert): refused unless the operator says the network is private (compose's own network).
  REDIS_PLAINTEXT: z
    .string()
    .trim()
    .default('')
    .pipe(z.enum(['', 'allow'], { error: 'empty, or allow (redis:// to a host other than this one, on a network you trust)' })),
  REDIS_PREFIX: z
    .string()
    .trim()
    .default('bb:')
    .transform((s) => (s === '' ? 'bb:' : s))
    .pipe(z.string().regex(/^[\w:.-]{1,64}$/, { error: 'up to 64 letters, digits, "_", ":", "." or "-", like bb:' })),
  ROLE: z
    .string()
    .trim()
    .default('all')
    .transform((s) => (s === '' ? 'all' : s))
    .pipe(z.enum(['all', 'front', 'worker'], { error: 'all, front or worker (front and worker need REDIS_URL)' })),
  // The local address this process's requests to the Data Service leave from (undici's localAddress).
  BB_LOCAL_ADDRESS: optionalString.pipe(z.union([z.ipv4(), z.ipv6()], { error: 'an IP address of this machine to send Data Service requests from' }).optional()),
}).superRefine((c, ctx) => {
  // Telegram posts to the webhook through HTTP_PORT, and checking the secret is not optional.
  if (c.ROLE !== 'all' && c.REDIS_URL === undefined) {
    ctx.addIssue({ code: 'custom', path: ['ROLE'], message: `all, unless REDIS_URL is set (ROLE=${c.ROLE} shares its work through Redis)` });
  }
  if (c.REDIS_URL !== undefined && c.REDIS_PLAINTEXT !== 'allow') {
    const url = new URL(c.REDIS_URL);
    if (url.protocol === 'redis:' && !isLoopbackHost(url.hostname)) {
      ctx.addIssue({
        code: 'custom',
        path: ['REDIS_URL'],
        message: `rediss:// (TLS) for a Redis on another host (${url.hostname}); on a private network you trust, keep redis:// and set REDIS_PLAINTEXT=allow`,
      });
    }
  }
  if (c.MINI_APP_URL !== undefined) {
    const url = new URL(c.MINI_APP_URL);
    // Telegram opens Mini Apps over https only; plain http is for this machine (the playground).
    if (url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) ctx.addIssue({ code: 'custom', path: ['MINI_APP_URL'], message: 'https:// (Telegram opens Mini Apps only over https)' });
    if (c.HTTP_PORT === undefined) ctx.addIssue({ code: 'custom', path: ['HTTP_PORT'], message: 'a port to serve the Mini App on (MINI_APP_URL is set)' });
  }
  if (c.TELEGRAM_WEBHOOK_URL !== undefined && c.HTTP_PORT === undefined) {
    ctx.addIssue({ code: 'custom', path: ['HTTP_PORT'], message: 'a port for the webhook to listen on (TELEGRAM_WEBHOOK_URL is set)' });
  }
  if (c.TELEGRAM_WEBHOOK_URL !== undefined && c.TELEGRAM_WEBHOOK_SECRET === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['TELEGRAM_WEBHOOK_SECRET'],
      message: '16 to 256 letters, digits, "_" or "-" that Telegram sends with every update (TELEGRAM_WEBHOOK_URL is set; openssl rand -hex 32)',
    });
  }
});

export type Config = z.infer<typeof configSchema>;

/** Thrown for a bad setting; its message is one line naming the variable and what it accepts. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads the settings from `env`. Values are validated as a whole; the first bad one is reported.
 * The message never echoes a value, since some settings are secrets.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue?.path[0] ?? 'environment');
  throw new ConfigError(`${name}: expected ${issue?.message ?? 'a valid value'}`);
}

/** The names `loadConfig` reads, for the `.env.example` check and for docs. */
export const configNames = Object.keys(configSchema.shape) as (keyof Config)[];
