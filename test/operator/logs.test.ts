/**
 * Logs an operator can read: one pretty, coloured line per event at a terminal, JSON lines
 * otherwise, chosen with LOG_FORMAT; secrets redacted in both. And the operator port's address
 * (HTTP_HOST): loopback unless told otherwise.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger, defaultLogFormat, type LogFormat } from '../../src/logger.js';
import { createBotMetrics } from '../../src/health/metrics.js';
import { startHealthServer } from '../../src/health/server.js';

const BOT_TOKEN = '123456789:AAH-abcdefghijklmnopqrstuvwxyz012345';
const SECRETS = ['s3cr3t-value', 'deep-secret', BOT_TOKEN, 'hook-secret-0123456789'];

function capture(format: LogFormat, colorize = false) {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger('info', sink, { format, colorize });
  return { logger, text: () => chunks.join('') };
}

function logEverySecret(logger: ReturnType<typeof createLogger>): void {
  logger.info({ secret: 's3cr3t-value', user: { accessSecret: 'deep-secret' } }, 'connect');
  logger.warn({ config: { BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET: 'hook-secret-0123456789' } }, 'settings');
  logger.error({ err: new Error(`getMe at /bot${BOT_TOKEN}/getMe failed`) }, 'start failed');
  logger.info(`a token pasted into a message: ${BOT_TOKEN}`);
}

describe('log formats', () => {
  it('pretty: one line per event with time, level and message, secrets redacted', () => {
    const { logger, text } = capture('pretty');
    logEverySecret(logger);
    const lines = text().trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: connect /);
    expect(lines[1]).toMatch(/ WARN: settings /);
    expect(lines[2]).toMatch(/ ERROR: start failed /);
    for (const line of lines) expect(() => JSON.parse(line)).toThrow();
    for (const s of SECRETS) expect(text()).not.toContain(s);
    expect(text()).toContain('[redacted]');
  });

  it('pretty colours the level when asked (a terminal)', () => {
    const { logger, text } = capture('pretty', true);
    logger.warn('careful');
    // eslint-disable-next-line no-control-regex
    expect(text()).toMatch(/\u001b\[\d+mWARN/);
  });

  it('json: one object per line, secrets redacted', () => {
    const { logger, text } = capture('json');
    logEverySecret(logger);
    const lines = text().trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const first = JSON.parse(lines[0]!) as { msg: string; level: number; secret: string };
    expect(first).toMatchObject({ msg: 'connect', level: 30, secret: '[redacted]' });
    for (const s of SECRETS) expect(text()).not.toContain(s);
  });

  it('LOG_FORMAT chooses; left empty it is pretty on a terminal and JSON otherwise', () => {
    expect(loadConfig({ LOG_FORMAT: 'json' }).LOG_FORMAT).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: '' }).LOG_FORMAT).toBeUndefined();
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/^LOG_FORMAT: expected pretty or json/);
    expect(defaultLogFormat(true)).toBe('pretty');
    expect(defaultLogFormat(false)).toBe('json');
  });
});

describe('HTTP_HOST', () => {
  it('defaults to 127.0.0.1, takes an address, and refuses anything else', () => {
    expect(loadConfig({}).HTTP_HOST).toBe('127.0.0.1');
    expect(loadConfig({ HTTP_HOST: '' }).HTTP_HOST).toBe('127.0.0.1');
    expect(loadConfig({ HTTP_HOST: '0.0.0.0' }).HTTP_HOST).toBe('0.0.0.0');
    expect(loadConfig({ HTTP_HOST: '::' }).HTTP_HOST).toBe('::');
    expect(() => loadConfig({ HTTP_HOST: 'every interface' })).toThrow(/^HTTP_HOST: expected an IP address/);
  });

  it('the operator port listens on loopback only unless told otherwise', async () => {
    const server = await startHealthServer({ port: 0, checks: [], metrics: createBotMetrics() });
    try {
      expect(server.address).toBe('127.0.0.1');
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
    const open = await startHealthServer({ port: 0, host: '0.0.0.0', checks: [], metrics: createBotMetrics() });
    try {
      expect(open.address).toBe('0.0.0.0');
    } finally {
      await open.close();
    }
  });
});
