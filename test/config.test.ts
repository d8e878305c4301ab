import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('config', () => {
  it('takes the documented defaults from an empty environment', () => {
    const c = loadConfig({});
    expect(c.BB_PATH_FORM).toBe('A');
    expect(c.BB_ACCOUNT_PREFIX).toBe('bb-');
    expect(c.LIMIT_TOKENS_PER_HOUR).toBe(20);
    expect(c.LIMIT_ITEMS_PER_MINUTE).toBe(30);
    expect(c.LIMIT_DICTS_PER_DAY).toBe(24);
    expect(c.LIMIT_SCOPE).toBe('key');
    expect(c.TELEGRAM_API_ROOT).toBe('https://api.telegram.org');
    expect(c.HTTP_PORT).toBeUndefined();
  });

  it('names the variable and what it accepts in one line, without echoing the value', () => {
    const bad = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error('accepted a bad value');
    };
    expect(bad({ LIMIT_SCOPE: 'host' })).toBe('LIMIT_SCOPE: expected key or address');
    expect(bad({ BB_PATH_FORM: 'C' })).toBe('BB_PATH_FORM: expected A or B');
    expect(bad({ POLL_INTERVAL_SECONDS: '3601' })).toMatch(/^POLL_INTERVAL_SECONDS: expected a whole number/);
    expect(bad({ POLL_INTERVAL_SECONDS: '-1' })).toMatch(/^POLL_INTERVAL_SECONDS: expected a whole number/);
    expect(bad({ LIMIT_SCOPE_TOKENS: 'host' })).toBe('LIMIT_SCOPE_TOKENS: expected key or address');
    expect(bad({ HTTP_PORT: '70000' })).toMatch(/^HTTP_PORT: /);
    const msg = bad({ BOT_TOKEN: 'not-a-token-secretvalue' });
    expect(msg).toMatch(/^BOT_TOKEN: /);
    expect(msg).not.toContain('secretvalue');
    expect(msg.split('\n')).toHaveLength(1);
  });

  it('reads lists, an empty prefix and strips trailing slashes from URLs', () => {
    const c = loadConfig({ ADMIN_USER_IDS: '1, 22', BB_ACCOUNT_PREFIX: '', BB_AUTH_URL: 'http://127.0.0.1:9/auth/' });
    expect(c.ADMIN_USER_IDS).toEqual([1, 22]);
    expect(c.BB_ACCOUNT_PREFIX).toBe('');
    expect(c.BB_AUTH_URL).toBe('http://127.0.0.1:9/auth');
  });

  it('runs the embedded bot unless REDIS_URL is set, and refuses a cluster role without it', () => {
    expect(loadConfig({})).toMatchObject({ ROLE: 'all', REDIS_PREFIX: 'bb:' });
    expect(loadConfig({}).REDIS_URL).toBeUndefined();
    expect(() => loadConfig({ ROLE: 'worker' })).toThrow(/^ROLE: expected all, unless REDIS_URL is set/);
    expect(() => loadConfig({ ROLE: 'boss', REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(/^ROLE: expected all, front or worker/);
    expect(() => loadConfig({ REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/^REDIS_URL: expected a redis:\/\//);
    expect(() => loadConfig({ BB_LOCAL_ADDRESS: 'eth0' })).toThrow(/^BB_LOCAL_ADDRESS: expected an IP address/);
    expect(loadConfig({ ROLE: 'front', REDIS_URL: 'redis://127.0.0.1:6379', BB_LOCAL_ADDRESS: '127.0.0.2' })).toMatchObject({
      ROLE: 'front',
      BB_LOCAL_ADDRESS: '127.0.0.2',
    });
  });

  it('requires https for the auth, data and Bot API hosts, unless the host is this machine', () => {
    for (const name of ['BB_AUTH_URL', 'BB_DICTS_URL', 'BB_ARBS_LIVE_URL', 'BB_VALUEBETS_PREMATCH_URL', 'TELEGRAM_API_ROOT']) {
      expect(() => loadConfig({ [name]: 'http://api.example.com' })).toThrow(new RegExp(`^${name}: expected an https:// URL \\(plain http:// only to this machine`));
      expect(() => loadConfig({ [name]: 'http://10.0.0.5:8080/x' })).toThrow(ConfigError);
      for (const ok of ['https://api.example.com', 'http://127.0.0.1:9', 'http://127.8.0.1', 'http://localhost:8081', 'http://[::1]:8081']) {
        expect(() => loadConfig({ [name]: ok }), `${name}=${ok}`).not.toThrow();
      }
    }
    // A host merely named like a loopback one is not.
    expect(() => loadConfig({ BB_AUTH_URL: 'http://127.0.0.1.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ BB_AUTH_URL: 'http://localhost.example.com' })).toThrow(ConfigError);
  });

  it('requires the Redis password in REDIS_URL for a Redis on another host', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis://redis:6379' })).toThrow(/^REDIS_URL: expected a URL with the Redis password, like redis:\/\/:password@host:6379/);
    expect(() => loadConfig({ REDIS_URL: 'rediss://10.0.0.7:6380' })).toThrow(ConfigError);
    for (const ok of ['rediss://bot:s3cret@10.0.0.7:6380/0', 'redis://127.0.0.1:6379', 'redis://localhost:6379']) {
      expect(() => loadConfig({ REDIS_URL: ok }), ok).not.toThrow();
    }
    expect(() => loadConfig({ REDIS_URL: 'redis://:s3cret-pass@redis:6379', REDIS_PLAINTEXT: 'allow' })).not.toThrow();
  });

  it('refuses redis:// without TLS to another host unless REDIS_PLAINTEXT=allow (audit 3), without echoing the password', () => {
    let message = '';
    try {
      loadConfig({ REDIS_URL: 'redis://:s3cret-pass@10.0.0.7:6379' });
    } catch (err) {
      message = err instanceof Error ? err.message : '';
    }
    expect(message).toMatch(/^REDIS_URL: expected rediss:\/\/ \(TLS\) for a Redis on another host \(10\.0\.0\.7\); .* REDIS_PLAINTEXT=allow$/);
    expect(message).not.toContain('s3cret');
    expect(() => loadConfig({ REDIS_URL: 'redis://:p@redis:6379', REDIS_PLAINTEXT: 'yes' })).toThrow(/^REDIS_PLAINTEXT: expected empty, or allow/);
    expect(() => loadConfig({ REDIS_URL: 'redis://:p@[::1]:6379' })).not.toThrow();
  });
});
