/**
 * The key's token budget told before it bites (issue 29 item 1; newcomer report #34, #10): where a
 * user chooses services — /filter's first step, its summary, /status — the bot says how a key's
 * token requests are shared and what each service's coverage means in minutes, with the figures
 * the token planner gives; after a save, "alerts start within seconds" is no longer promised;
 * /rank changes which service the plan favours, and the scheduler follows at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { botWithScheduler, type BotWithScheduler } from '../support/bot-with-scheduler.js';

const ALICE = { id: 5301, first_name: 'Alice', language_code: 'en' };

let rig: BotWithScheduler;
beforeEach(async () => {
  rig = await botWithScheduler();
  await rig.say(ALICE, `/connect ${rig.sandbox.demoKey.accessKey} ${rig.sandbox.demoKey.secret}`);
});
afterEach(async () => {
  await rig.close();
});

/**
 * Arbs prematch and live: 18 of the hour's 20 token requests go to polling them. From +50 %, so
 * that no alert (nor a first read's summary) comes between a question and the test's look at it.
 */
async function twoFilters(): Promise<void> {
  await rig.say(ALICE, '/filter arbs_prematch min_profit=50');
  await rig.say(ALICE, '/filter arbs_live min_profit=50');
}

describe('the token budget in words', () => {
  it('#34: /filter says how services share the key before the choice, and what a share means at the summary', async () => {
    await twoFilters();
    await rig.say(ALICE, '/filter');
    const first = rig.lastText(ALICE.id);
    expect(first).toContain('Which service?');
    expect(first).toContain('Your key gets 20 token requests an hour, and a token serves one service for 5 min');
    expect(first).toContain('Arbs · live: read all the time');
    expect(first).toContain('Arbs · prematch: 50 % of the time: read 30 min of each hour');

    await rig.tap(ALICE, 'Valuebets · prematch');
    await rig.tap(ALICE, 'Done');
    await rig.tap(ALICE, 'Done');
    await rig.say(ALICE, '3');
    await rig.say(ALICE, '1.5-4');
    await rig.tap(ALICE, 'Any time');
    const summary = rig.lastText(ALICE.id);
    expect(summary).toContain('Valuebets · prematch 8 %');
    // What 8 % means for a bettor: minutes read, the longest gap, missed or late alerts.
    expect(summary).toContain('Valuebets · prematch: 8 % of the time: read 5 min of each hour, with gaps of up to 55 min without a read');
    expect(summary).toContain('alerted up to 55 min late');
  }, 30_000);

  it('#10: a saved filter is not promised alerts "within seconds"; its first read is', async () => {
    await rig.say(ALICE, '/filter arbs_prematch min_profit=14');
    const saved = rig.lastText(ALICE.id);
    expect(saved).not.toContain('Alerts start within seconds');
    expect(saved).toContain('Its first read is due within seconds; an alert comes as soon as an item matches your filter.');
  });

  it('/status explains the budget; /rank puts prematch first and the plan follows', async () => {
    await twoFilters();
    await rig.say(ALICE, '/status');
    const status = rig.lastText(ALICE.id);
    expect(status).toContain('two get 100 % and 50 %');
    expect(status).toContain('Arbs · prematch: 50 % of the time');

    await rig.say(ALICE, '/rank arbs_prematch');
    expect(rig.lastText(ALICE.id)).toContain('1. Arbs · prematch: read all the time');
    expect(rig.store.getUser(ALICE.id)?.serviceRank).toEqual(['arbs_prematch']);
    expect(rig.scheduler.coverage(ALICE.id).arbs_prematch?.share).toBe(1);
    expect(rig.scheduler.coverage(ALICE.id).arbs_live?.share).toBe(0.5);

    await rig.say(ALICE, '/rank arbs_prematch valuebetz');
    expect(rig.lastText(ALICE.id)).toContain('“valuebetz” is not one of the services');
    expect(rig.store.getUser(ALICE.id)?.serviceRank).toEqual(['arbs_prematch']);

    await rig.say(ALICE, '/rank reset');
    expect(rig.store.getUser(ALICE.id)?.serviceRank).toEqual([]);
    expect(rig.scheduler.coverage(ALICE.id).arbs_live?.share).toBe(1);
  });
});
