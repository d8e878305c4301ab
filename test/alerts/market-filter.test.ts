/**
 * The market filter where the service cannot apply it (issue 31 item 5): an item in a group the
 * user left out (odd/even, corners…) is never sent as a new alert, is counted once for /status,
 * and stays withheld when its odds move; the same item in a group kept is alerted.
 */
import { describe, expect, it } from 'vitest';
import type { Dictionaries } from '../../src/service/dictionaries-model.js';
import type { Opportunity } from '../../src/service/opportunity.js';
import { DICTS, opp } from '../scheduler/fixtures.js';
import { addUser } from '../scheduler/harness.js';
import { useNotifierRig } from './notifier-rig.js';

const WITH_GROUPS: Dictionaries = {
  ...DICTS,
  oddsGroups: { '1': 'Match', '7': 'Corners' },
  oddsTypes: {
    ...DICTS.oddsTypes,
    '19': { titleShort: 'Odd', titleFull: 'Total odd', lay: false, sectionId: 6 },
    '20': { titleShort: 'Even', titleFull: 'Total even', lay: false, sectionId: 6 },
  },
};

const rig = useNotifierRig(WITH_GROUPS);

const oddEven = (id: string, odds: [number, number]): Opportunity => {
  const base = opp(id, odds, 3.73);
  return { ...base, legs: base.legs.map((l, i) => ({ ...l, typeId: 19 + i })) };
};
const corners = (id: string): Opportunity => ({ ...opp(id, [2.1, 2.05], 3.73), groupIds: [7] });

describe('items in a market group left out', () => {
  it('are never alerted, are counted once this hour, and a move does not alert them', async () => {
    addUser(rig.store, 1, ['arbs_prematch'], { filter: { marketsOff: ['odd_even', 'corners'] } });
    await rig.read([oddEven('oe', [2.1, 2.05]), corners('co'), opp('ok', [2.1, 2.05], 3.73)]);
    expect(rig.outbox.sent).toHaveLength(1);
    expect(rig.outbox.sent[0]).toContain('<code>ok</code>');
    expect(rig.store.alerts.get('1:arbs_prematch', 'oe')?.withheld).toBe(true);
    expect(rig.store.getUser(1)!.status.arbs_prematch?.leftOut).toEqual({ hour: Math.floor(rig.clock.now() / 3_600_000), count: 2 });
    // Its odds move: still left out, and not counted twice.
    await rig.clock.advance(20_000);
    await rig.read([oddEven('oe', [2.2, 2.05]), corners('co'), opp('ok', [2.1, 2.05], 3.73)]);
    expect(rig.outbox.sent).toHaveLength(1);
    expect(rig.store.getUser(1)!.status.arbs_prematch?.leftOut?.count).toBe(2);
    // The next hour starts from zero.
    await rig.clock.advance(3_600_000);
    await rig.read([oddEven('oe2', [2.1, 2.05])]);
    expect(rig.store.getUser(1)!.status.arbs_prematch?.leftOut).toEqual({ hour: Math.floor(rig.clock.now() / 3_600_000), count: 1 });
  });

  it('with every market kept the same items are alerted', async () => {
    addUser(rig.store, 1, ['arbs_prematch']);
    await rig.read([oddEven('oe', [2.1, 2.05]), corners('co')]);
    expect(rig.outbox.sent).toHaveLength(2);
    expect(rig.store.getUser(1)!.status.arbs_prematch?.leftOut).toBeUndefined();
  });
});
