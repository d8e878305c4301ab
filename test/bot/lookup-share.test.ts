/**
 * The embedded bot under LIMIT_SCOPE=address (issue 24 item 6): the service counts item reads per
 * host for the whole bot, and 6 a minute are left to lookups. One user's /item lookups take only
 * their part of them (3): the next is refused before anything is sent, and the user is told it is
 * their part that is used and when to try again; another user's lookups still go through.
 */
import { describe, expect, it } from 'vitest';
import { withSandboxFront, type SandboxFront } from '../support/bot-on-client.js';

const X = { id: 9301, first_name: 'Xavier', language_code: 'en' };
const Y = { id: 9402, first_name: 'Юлия', language_code: 'ru' };
const KEYS = [
  { accessKey: 'key-of-x', secret: 'secret-of-x-0123456789' },
  { accessKey: 'key-of-y', secret: 'secret-of-y-0123456789' },
];

let s: SandboxFront;
withSandboxFront(
  { sandbox: { keys: KEYS, limits: { scope: 'address', tokenScope: 'key' } }, config: { LIMIT_SCOPE: 'address' }, env: { LIMIT_SCOPE: 'address' } },
  (ready) => (s = ready),
);

const lastText = (chatId: number) => s.fake.messages(chatId).at(-1)?.text ?? '';
const reads = () => s.sandbox.counters().requests.item ?? 0;

describe('LIMIT_SCOPE=address in one process', () => {
  it('one user’s lookups take their 3 of the 6 interactive reads a minute; another user’s still go through', async () => {
    await s.front.say(X, `/connect ${KEYS[0]!.accessKey} ${KEYS[0]!.secret}`);
    await s.front.say(Y, `/connect ${KEYS[1]!.accessKey} ${KEYS[1]!.secret}`);
    expect(lastText(Y.id)).toContain('подключён');
    for (let i = 0; i < 3; i++) {
      await s.front.say(X, `/item no-such-${i} arbs_prematch`);
      expect(lastText(X.id)).toContain('No opportunity');
    }
    expect(reads()).toBe(3);
    await s.front.say(X, '/item no-such-3 arbs_prematch');
    // Refused before it was sent: X's part is used; they are told so, and when to try again.
    expect(reads()).toBe(3);
    expect(lastText(X.id)).toContain('each user gets a part of them, and you have used yours');
    expect(lastText(X.id)).toMatch(/try again in \d+ (s|min)/);
    await s.front.say(Y, '/item no-such-4 arbs_prematch');
    expect(reads()).toBe(4);
    expect(lastText(Y.id)).not.toContain('свою вы пока исчерпали');
    expect(s.sandbox.counters().status['429']).toBeUndefined();
  });
});
