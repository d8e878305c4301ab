import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactSecrets } from '../src/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger('trace', stream) };
}

const BOT_TOKEN = '123456789:AAH-abcdefghijklmnopqrstuvwxyz012345';

describe('logger redaction', () => {
  it('censors secrets under known keys, at the top level and one level down', () => {
    const { lines, logger } = capture();
    logger.info({ secret: 's3cr3t-value', token: 'tok-123', user: { accessSecret: 'deep-secret' } }, 'connect');
    logger.info({ headers: { authorization: 'ApiKey s3cr3t-value' } }, 'request');
    logger.info({ config: { BOT_TOKEN, ENCRYPTION_KEY: 'ab'.repeat(32) } }, 'config');
    const all = lines.join('');
    for (const secret of ['s3cr3t-value', 'tok-123', 'deep-secret', BOT_TOKEN, 'ab'.repeat(32)]) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('[redacted]');
  });

  it('scrubs credentials from error messages and stacks', () => {
    const { lines, logger } = capture();
    const err = new Error(`call to https://api.telegram.org/bot${BOT_TOKEN}/getMe failed with Bearer tok-abc`);
    logger.error({ err }, 'failed');
    const all = lines.join('');
    expect(all).not.toContain(BOT_TOKEN);
    expect(all).not.toContain('tok-abc');
    expect(all).toContain('[redacted-bot-token]');
  });

  it('redactSecrets cuts ApiKey and Bearer values and bot tokens from free text', () => {
    expect(redactSecrets(`Authorization: ApiKey abc123, next`)).toBe('Authorization: ApiKey [redacted], next');
    expect(redactSecrets(`bot${BOT_TOKEN}/sendMessage`)).toBe('bot[redacted-bot-token]/sendMessage');
    expect(redactSecrets('nothing to hide')).toBe('nothing to hide');
  });
});
