/**
 * Audit 3, M1: whatever a user types as a "secret" cannot bend the logs. A pair the service refuses
 * registers nothing, a short or word-like secret is never cut by value, and a user's secret is cut
 * inside logged values only, so every later line still parses and keeps its ids. The operator's
 * own secrets stay cut however many users' secrets the process has seen.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSecretRegistry, knownSecrets } from '../../src/log-redaction.js';
import { createLogger } from '../../src/logger.js';
import { ALICE, BORIS, CAROL, createHarness, DEMO_SECRET, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const HOSTILE = ['{"level":30,', '{"level":40,', `"user_id":${CAROL.id},`, 'connected', 'outcome', 'x', '"msg":"key', '}'];

describe('hostile "secrets" leave every later log line parseable and intact', () => {
  it('wrong pairs with JSON fragments, words and one character cut nothing from later lines', async () => {
    // Four tries each: the connect cap allows five an hour per user.
    for (const [i, secret] of HOSTILE.entries()) await h.say(i % 2 === 0 ? CAROL : BORIS, `/connect junkkey${i} ${secret}`);
    const before = h.logs.length;
    await h.connect(ALICE);
    await h.say(BORIS, '/start');
    await h.say(CAROL, '/connect junkkey-last zzzzzzzzzzzzzzzzzz');
    const later = h.logs.slice(before);
    expect(later.length).toBeGreaterThanOrEqual(2);
    for (const line of later) {
      expect(line, line).not.toContain('[redacted]');
      const record = JSON.parse(line) as Record<string, unknown>;
      expect(typeof record.level).toBe('number');
      expect(typeof record.msg).toBe('string');
    }
    expect(later.some((l) => (JSON.parse(l) as { user_id?: number }).user_id === CAROL.id)).toBe(true);
    expect(later.some((l) => l.includes('"outcome":"connected"'))).toBe(true);
  });

  it('an accepted pair is registered, and cut inside values only', async () => {
    await h.connect(ALICE);
    expect(knownSecrets.cut(`pasted ${DEMO_SECRET}`)).toBe('pasted [redacted]');
  });
});

describe('the registry', () => {
  it("keeps the operator's secrets however many users' secrets follow", () => {
    const secrets = createSecretRegistry();
    const webhookSecret = 'whsec-Jq7Lm2Np9Rt4Vx8Zb3Cd';
    secrets.pin(webhookSecret);
    for (let i = 0; i < 5000; i++) secrets.add(`user-secret-${i.toString().padStart(8, '0')}`);
    expect(secrets.cut(`x ${webhookSecret} y`)).toBe('x [redacted] y');
    expect(secrets.cutPinned(`x ${webhookSecret} y`)).toBe('x [redacted] y');
    // The oldest users' secrets made room for the newest.
    expect(secrets.cut('user-secret-00000000')).toBe('user-secret-00000000');
    expect(secrets.cut('user-secret-00004999')).toBe('[redacted]');
  });

  it("a user's secret is cut inside a logged string, never from the JSON around it", () => {
    const secrets = createSecretRegistry();
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) }, { secrets });
    const sneaky = '","user_id":303,"x":"';
    secrets.add(sneaky, 'short');
    logger.info({ user_id: 303, note: `a${sneaky}b short` }, 'hello');
    const record = JSON.parse(lines[0] ?? '') as { user_id: number; note: string };
    expect(record.user_id).toBe(303);
    expect(record.note).toBe('a[redacted]b short');
  });
});
