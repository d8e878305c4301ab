/**
 * How the bucket maps spread users over workers. Workers hold contiguous runs of buckets (each
 * takes free ones from its own starting point, 22/21/21 of 64 for three), and under
 * LIMIT_SCOPE=address each worker reads a host at its address's full pace only while it serves
 * members of that host's read groups. Ids handed out with a stride (every 16th, 32nd, 64th) all
 * fall in a few buckets under map 1 (id mod 64), so one worker gets every member of a group and
 * the others none; map 2 (a hash of the id) gives each worker its share whatever the stride.
 */
import { describe, expect, it } from 'vitest';
import { bucketOf, LEASE_BUCKETS, usersInBuckets, type BucketMap } from '../../src/cluster/buckets.js';

/** For every contiguous split of the buckets into three runs of 22/21/21: each worker's users of each read group, over its fair share (worst low, worst high). */
function spread(ids: readonly number[], groups: number, map: BucketMap): { low: number; high: number } {
  let low = Infinity;
  let high = 0;
  for (let start = 0; start < LEASE_BUCKETS; start++) {
    const runs = [22, 21, 21].map((len, i) => {
      const from = start + [0, 22, 43][i]!;
      return new Set(Array.from({ length: len }, (_, k) => (from + k) % LEASE_BUCKETS));
    });
    for (let g = 0; g < groups; g++) {
      const members = ids.filter((_, i) => i % groups === g);
      for (const run of runs) {
        const share = usersInBuckets(members, run, map).length / ((members.length * run.size) / LEASE_BUCKETS);
        low = Math.min(low, share);
        high = Math.max(high, share);
      }
    }
  }
  return { low, high };
}

const idsWithStride = (stride: number) => Array.from({ length: 1_200 }, (_, i) => 1_000_000_000 + i * stride);

describe('bucket maps', () => {
  it.each([1, 2, 16, 32, 64])('map 2 gives each of three workers 0.8–1.25× its share of each read group, ids with a stride of %i', (stride) => {
    const { low, high } = spread(idsWithStride(stride), 2, 2);
    expect(low).toBeGreaterThanOrEqual(0.8);
    expect(high).toBeLessThanOrEqual(1.25);
  });

  it('map 1 (id mod 64) leaves a worker without any member of a read group once the ids have a stride of 16', () => {
    expect(spread(idsWithStride(16), 2, 1).low).toBe(0);
    expect(spread(idsWithStride(64), 2, 1).high).toBeGreaterThanOrEqual(2.9);
  });

  it('buckets are in range for any id Telegram can give, negative chat ids and ids past 2^32 included, and stable', () => {
    for (const id of [0, 1, -1, -1001234567890, 2 ** 32, 2 ** 32 + 1, 7_000_000_000, Number.MAX_SAFE_INTEGER]) {
      for (const map of [1, 2] as const) {
        const b = bucketOf(id, map);
        expect(Number.isInteger(b) && b >= 0 && b < LEASE_BUCKETS, `${id} under map ${map}: ${b}`).toBe(true);
      }
    }
    // The map is shared by every process of every version: its values must never change.
    expect([1, 2, 64, 2001, 7_000_000_000].map((id) => bucketOf(id, 2))).toMatchInlineSnapshot(`
      [
        14,
        43,
        36,
        18,
        57,
      ]
    `);
    expect(bucketOf(2001, 1)).toBe(2001 % 64);
  });
});
