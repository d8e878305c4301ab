/**
 * No Docker engine runs on the CI machine, so compose.yaml's promises are checked as data (it is
 * JSON-shaped YAML; its own-line comments are dropped first): Redis 7 with AOF and noeviction on a
 * volume and a ping health check; one front and two workers built from this Dockerfile, each with
 * its role and the Redis URL, the bot's /healthz as their health check (the same command as the
 * image's), started only once Redis (and, for workers, the front) is healthy.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../src/config.js';

const text = readFileSync(new URL('../compose.yaml', import.meta.url), 'utf8');
const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');

const healthcheck = z.object({ test: z.array(z.string()), interval: z.string(), timeout: z.string(), retries: z.number() }).passthrough();
const dependsOn = z.record(z.string(), z.object({ condition: z.string() }));
const botService = z.object({
  build: z.string(),
  image: z.string(),
  env_file: z.string(),
  environment: z.record(z.string(), z.string()),
  volumes: z.array(z.string()),
  depends_on: dependsOn,
  healthcheck,
  stop_grace_period: z.string(),
  deploy: z.object({ replicas: z.number() }).optional(),
});
const compose = z
  .object({
    services: z.object({
      redis: z.object({ image: z.string(), command: z.array(z.string()), environment: z.record(z.string(), z.string()), volumes: z.array(z.string()), healthcheck }),
      front: botService,
      worker: botService,
    }),
    volumes: z.record(z.string(), z.object({})),
  })
  .parse(JSON.parse(text.split('\n').filter((line) => !/^\s*#/.test(line)).join('\n')));
const { redis, front, worker } = compose.services;

/** `--flag value` pairs of a command line. */
const flagsOf = (command: string[]) => Object.fromEntries(command.flatMap((word, i) => (word.startsWith('--') ? [[word, command[i + 1]]] : [])));

describe('compose.yaml', () => {
  it('runs Redis 7 with its AOF on a named volume, no eviction, and a ping health check', () => {
    expect(redis.image).toMatch(/^redis:7(\.|-|$)/);
    expect(flagsOf(redis.command)).toMatchObject({ '--appendonly': 'yes', '--maxmemory-policy': 'noeviction' });
    expect(redis.volumes).toContain('redis-data:/data');
    expect(compose.volumes).toHaveProperty('redis-data');
    // redis-cli takes the password from REDISCLI_AUTH; an answer other than PONG (NOAUTH) fails the check.
    expect(redis.healthcheck.test).toEqual(['CMD-SHELL', 'redis-cli ping | grep -q PONG']);
  });

  it('never starts Redis without a password: requirepass and every REDIS_URL from REDIS_PASSWORD, required', () => {
    const required = '${REDIS_PASSWORD:?set REDIS_PASSWORD in .env (openssl rand -hex 32)}';
    expect(flagsOf(redis.command)['--requirepass']).toBe(required);
    expect(redis.environment.REDISCLI_AUTH).toBe(required);
    for (const service of [front, worker]) {
      expect(service.environment.REDIS_URL).toBe(`redis://:${required}@redis:6379`);
      // As compose hands it to the bot, with the password put in.
      const url = service.environment.REDIS_URL!.replace(required, 'ab12'.repeat(8));
      expect(new URL(url).password).toBe('ab12'.repeat(8));
    }
    // In clear text on compose's own network only, said so; workers are not handed the bot token.
    expect(front.environment.REDIS_PLAINTEXT).toBe('allow');
    expect(worker.environment.REDIS_PLAINTEXT).toBe('allow');
    expect(worker.environment.BOT_TOKEN).toBe('');
    expect(front.environment.BOT_TOKEN).toBeUndefined();
    // No other service reaches Redis without it.
    const urls = JSON.stringify(compose).match(/rediss?:\/\/[^"]*/g) ?? [];
    expect(urls).toHaveLength(2);
    expect(urls.every((u) => u.includes(required))).toBe(true);
  });

  it('runs one front and two workers from this Dockerfile, each with its role and the Redis URL, valid settings for the bot', () => {
    for (const [service, role] of [[front, 'front'], [worker, 'worker']] as const) {
      expect(service.build).toBe('.');
      expect(service.environment).toMatchObject({ ROLE: role });
      const environment = { ...service.environment, REDIS_URL: service.environment.REDIS_URL!.replace(/\$\{REDIS_PASSWORD[^}]*\}/, 'ab12'.repeat(8)) };
      expect(() => loadConfig({ ...environment, BOT_TOKEN: '123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ' })).not.toThrow();
      // The key file and the dictionaries cache are shared, so a generated encryption key is the same everywhere.
      expect(service.volumes).toContain('bot-data:/data');
    }
    expect(front.deploy?.replicas ?? 1).toBe(1);
    expect(worker.deploy?.replicas).toBe(2);
    expect(compose.volumes).toHaveProperty('bot-data');
  });

  it('checks each bot container with its /healthz on HTTP_PORT, the same command as the image', () => {
    const image = /HEALTHCHECK[\s\S]*?CMD (\[.*\])/.exec(dockerfile)?.[1];
    expect(image).toBeDefined();
    for (const service of [front, worker]) {
      expect(service.healthcheck.test.slice(0, 1)).toEqual(['CMD']);
      expect(service.healthcheck.test.slice(1)).toEqual(JSON.parse(image!));
      expect(service.healthcheck.test.join(' ')).toMatch(/HTTP_PORT[\s\S]*\/healthz/);
    }
  });

  it('starts the bot only once Redis is healthy, and the workers once the front is', () => {
    expect(front.depends_on).toEqual({ redis: { condition: 'service_healthy' } });
    expect(worker.depends_on).toEqual({ redis: { condition: 'service_healthy' }, front: { condition: 'service_healthy' } });
  });

  it('gives the bot longer to stop than its own shutdown takes (drain 10 s, forced exit at 20 s)', () => {
    for (const service of [front, worker]) expect(Number.parseInt(service.stop_grace_period, 10)).toBeGreaterThan(20);
  });
});
