/**
 * /connect and the key's token budget (newcomer report #2, #35). With arbs live and prematch
 * read, the key's 2 interactive token requests of the hour went to the first /connect and the
 * second filter; then:
 * - the same, already verified pair again needs no key check (none is sent) and is told so;
 * - a wrong secret for that key was answered "Too many key checks for now": it is answered as
 *   wrong, since the stored secret is the key's one secret and the service accepted it;
 * - unless the service has refused the stored secret since (a 401 pause): then nothing is known,
 *   and the answer is the budget's wait, as before;
 * - the answer lists every service the key reads with its coverage in words, not just the
 *   service the pair was checked with; before any filter, how a key's budget is shared.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botWithScheduler, type BotWithScheduler } from '../support/bot-with-scheduler.js';

const ALICE = { id: 5201, first_name: 'Alice', language_code: 'en' };

let rig: BotWithScheduler;
beforeEach(async () => {
  rig = await botWithScheduler();
});
afterEach(async () => {
  await rig.close();
});

async function twoServices(): Promise<void> {
  await rig.twoServices(ALICE);
  await rig.run(30_000);
}

describe('/connect when the key’s checks are spent', () => {
  it('#35: the answer says how a key’s budget is shared, then lists every service the key reads', async () => {
    const { sandbox } = rig;
    await rig.say(ALICE, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`);
    const first = rig.lastText(ALICE.id);
    expect(first).toContain('token requests an hour');
    expect(first).toContain('two get 100 % and 50 %; three get 100 %, 42 % and 8 % of the time');
    await rig.say(ALICE, '/filter arbs_prematch');
    await rig.say(ALICE, '/filter arbs_live');
    await rig.run(30_000);
    await rig.say(ALICE, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`);
    const again = rig.lastText(ALICE.id);
    expect(again).toContain('Arbs · live: read all the time');
    expect(again).toMatch(/Arbs · prematch: 50 % of the time: read 30 min of each hour, with gaps of up to 5 min without a read/);
  }, 30_000);

  it('#2: the same verified pair is not checked again; a wrong secret is answered as wrong, whatever the budget', async () => {
    const { sandbox } = rig;
    await twoServices();
    const tokens = sandbox.counters().requests.token;
    await rig.say(ALICE, `/connect ${sandbox.demoKey.accessKey} ${sandbox.demoKey.secret}`);
    const again = rig.lastText(ALICE.id);
    expect(again).toContain('already connected with this very secret');
    expect(sandbox.counters().requests.token).toBe(tokens);

    await rig.say(ALICE, `/connect ${sandbox.demoKey.accessKey} wrong-secret-999`);
    const wrong = rig.lastText(ALICE.id);
    expect(wrong).toContain('is wrong');
    expect(wrong).not.toContain('Too many key checks');
    expect(sandbox.counters().requests.token).toBe(tokens);
    // Nothing changed: the stored pair is the good one, and the alerts go on.
    expect(rig.store.getUser(ALICE.id)?.key?.accessKey).toBe(sandbox.demoKey.accessKey);
    expect(rig.store.getUser(ALICE.id)?.filters.arbs_live?.paused).toBe(false);
  }, 30_000);

  it('a pair the service has refused since is not "known": the answer is the wait, nothing is guessed', async () => {
    await twoServices();
    rig.store.updateUser(ALICE.id, (u) => {
      u.filters.arbs_prematch!.paused = true;
      u.filters.arbs_prematch!.pausedReason = 'auth';
    });
    await rig.say(ALICE, `/connect ${rig.sandbox.demoKey.accessKey} another-secret-123`);
    expect(rig.lastText(ALICE.id)).toContain('Too many key checks');
  }, 30_000);
});
