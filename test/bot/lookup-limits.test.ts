/**
 * The trial's "not found … (the service's request limit was reached)" (newcomer #7), over real
 * sockets: the embedded client on the sandbox, with the token plan of a key polled for two
 * services (18 of the 20 token requests an hour are polling's). Five minutes after the filters were
 * saved, the poller holds a fresh token for one service while the other's has run out and the two
 * an hour left to commands are spent: the lookup reads one service and is held back from the
 * other. The answer names both; "not found" plain only when every service answered.
 */
import { describe, expect, it } from 'vitest';
import { withSandboxFront, type SandboxFront } from '../support/bot-on-client.js';

const X = { id: 9301, first_name: 'Xavier', language_code: 'en' };
const KEY = { accessKey: 'key-of-x', secret: 'secret-of-x-0123456789' };
const ref = { accessKey: KEY.accessKey, revealSecret: () => KEY.secret };

let s: SandboxFront;
withSandboxFront({ sandbox: { keys: [KEY] } }, (ready) => {
  s = ready;
  // The embedded client has it (the port makes it optional for clients that plan no tokens).
  s.client.setPollingTokens!(KEY.accessKey, 18);
});

const lastText = () => s.fake.messages(X.id).at(-1)?.text ?? '';
const reads = () => s.sandbox.counters().requests.item ?? 0;

describe('a lookup one service answered and a limit kept from the other', () => {
  it('says where it found nothing and where it could not look, never "not found (limit)"', async () => {
    await s.front.say(X, `/connect ${KEY.accessKey} ${KEY.secret}`);
    await s.front.say(X, '/filter arbs_prematch min_profit=0');
    await s.front.say(X, '/filter arbs_live min_profit=0');
    // Past the tokens' 5 minutes: the poller renews prematch's from its share; live's is gone.
    await s.clock.advance(6 * 60_000);
    await s.client.readItems(ref, 'arbs_prematch', { priority: 'poll' });

    await s.front.say(X, '/item 0123456789abcdef');
    expect(reads()).toBe(1);
    expect(lastText()).toMatch(
      /^🔎 Not found in Arbs · prematch\. I could not look in Arbs · live now: the service’s request limit was reached; the limit frees in \d+ minutes\. For that service that is not “not found”: try again then\.$/,
    );
    expect(lastText()).not.toContain('No opportunity');

    // An hour on, the budget has room: both services answer, and it is "not found", with no limit words.
    await s.clock.advance(60 * 60_000);
    await s.client.readItems(ref, 'arbs_prematch', { priority: 'poll' });
    await s.front.say(X, '/item 0123456789abcdef');
    expect(reads()).toBe(3);
    expect(lastText()).toBe(
      'No opportunity with the id <code>0123456789abcdef</code> was found in your current opportunities (it may be gone, or outside your filter).',
    );
  });
});
