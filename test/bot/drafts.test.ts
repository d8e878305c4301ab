/**
 * A filter the token budget refuses is kept as a draft, not thrown away (newcomer report #1). The
 * report's case: a key reading arbs live and prematch (18 of the hour's 20 token requests go to
 * polling) whose 2 interactive ones were spent on /connect and the second filter; a third
 * service's save was answered "Nothing was saved; try again in 51 min". Now the build is kept,
 * /filters shows it as a draft with its expected time, the scheduler writes it when the plan
 * gives the service its token, and the user is told it is live. A one-line /filter meanwhile
 * changes the draft (the latest build), not the filter written before it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botWithScheduler, type BotWithScheduler } from '../support/bot-with-scheduler.js';

const ALICE = { id: 5101, first_name: 'Alice', language_code: 'en' };

let rig: BotWithScheduler;
beforeEach(async () => {
  rig = await botWithScheduler();
});
afterEach(async () => {
  await rig.close();
});

describe('a save the token budget refuses', () => {
  it('is kept as a draft, shown in /filters, written when the budget allows, and the user told it is live', async () => {
    const { sandbox, store } = rig;
    await rig.twoServices(ALICE);
    expect(store.getUser(ALICE.id)?.filters.arbs_live).toBeDefined();
    await rig.run(60_000);
    const tokensBefore = sandbox.counters().requests.token;

    await rig.say(ALICE, '/filter valuebets_prematch min_overvalue=3 min_odds=1.5 max_odds=4');
    const answer = rig.lastText(ALICE.id);
    expect(answer).not.toContain('Nothing was saved');
    expect(answer).toContain('draft');
    expect(store.getUser(ALICE.id)?.drafts.valuebets_prematch?.settings.minOvervalue).toBe(3);
    expect(store.getUser(ALICE.id)?.filters.valuebets_prematch).toBeUndefined();
    // Nothing was sent for it: the limiter refused before the request.
    expect(sandbox.counters().requests.token).toBe(tokensBefore);
    const expectedAt = rig.scheduler.coverage(ALICE.id).valuebets_prematch?.nextTokenAt;
    expect(expectedAt).toBeGreaterThan(rig.clock.now());

    await rig.say(ALICE, '/filters');
    const list = rig.lastText(ALICE.id);
    expect(list).toContain('Valuebets · prematch');
    expect(list).toMatch(/draft: waiting for the token budget; written at about .+ \(in \d+ minutes?\)/);

    // The plan gives valuebets prematch its window within the hour; the scheduler writes the draft then.
    for (let waited = 0; waited < 70 * 60_000 && !store.getUser(ALICE.id)?.filters.valuebets_prematch; waited += 60_000) await rig.run(60_000);
    const user = store.getUser(ALICE.id)!;
    expect(user.filters.valuebets_prematch?.settings.minOvervalue).toBe(3);
    expect(user.drafts.valuebets_prematch).toBeUndefined();
    // Written when /filters said it would be (within the one-minute steps of this test).
    expect(user.filters.valuebets_prematch!.savedAt).toBeLessThanOrEqual(expectedAt! + 60_000);
    await rig.run(5_000);
    expect(rig.fake.messages(ALICE.id).some((m) => m.text.includes('Your draft filter for Valuebets · prematch is written and live now'))).toBe(true);
    // No request the service refused on the way.
    expect(sandbox.counters().status['429']).toBeUndefined();
  }, 60_000);
});

describe('a one-line /filter while a draft waits', () => {
  it('changes the draft, the user’s latest build, not the filter written before it', async () => {
    const { store } = rig;
    await rig.twoServices(ALICE);
    await rig.say(ALICE, '/filter valuebets_prematch min_overvalue=3 max_odds=4');
    expect(store.getUser(ALICE.id)?.drafts.valuebets_prematch).toBeDefined();
    await rig.say(ALICE, '/filter valuebets_prematch min_odds=1.5');
    const answer = rig.lastText(ALICE.id);
    expect(answer).toContain('as a draft');
    expect(answer).toContain('Odds: 1.5–4');
    expect(store.getUser(ALICE.id)?.drafts.valuebets_prematch?.settings).toMatchObject({ minOvervalue: 3, minOdds: 1.5, maxOdds: 4 });
  });
});
