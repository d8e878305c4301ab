/**
 * Users in lease buckets. A cluster's workers share the polling by leasing buckets of users, not
 * single subscriptions: a user's services share one access key, so the key's token plan and its
 * read pace stay inside one worker, and 64 leases renewed every few seconds cost Redis almost
 * nothing whatever the number of users.
 *
 * Which bucket a user falls in is the cluster's bucket map, versioned in Redis (lease-scripts.ts):
 * map 1 is the Telegram id modulo 64 (clusters started before map 2 existed), map 2 a 32-bit hash
 * of the id modulo 64. Modulo 64 puts every id of one residue in one bucket: ids with a stride
 * (every 32nd, every 64th: ids handed out in blocks, or one read group's members whose ids share a
 * pattern) all fall in one or two buckets, so one worker reads them all. The hash spreads any set
 * of ids over the buckets like a random draw. A running cluster moves from map 1 to map 2 once
 * every live worker knows map 2 ([docs/cluster.md](../../docs/cluster.md#upgrading-a-running-cluster)).
 */

/** How many buckets the users are spread over: the most workers that can share the polling. */
export const LEASE_BUCKETS = 64;

/** The bucket maps this code knows: 1 (id mod 64) and 2 (a hash of the id). */
export type BucketMap = 1 | 2;
/** The newest map this code knows; a cluster whose live workers all know it moves to it. */
export const LATEST_BUCKET_MAP: BucketMap = 2;

/** murmur3's 32-bit finaliser: every input bit moves every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of a whole number of up to 53 bits (Telegram ids exceed 32 bits; a negative id is a chat). */
export function hashId(id: number): number {
  const lo = id >>> 0;
  const hi = Math.floor(id / 2 ** 32) >>> 0;
  return fmix32(fmix32(lo) ^ Math.imul(hi + 0x9e3779b9, 0x27d4eb2d));
}

/** The bucket of a user under `map` (default the latest); never negative. */
export function bucketOf(userId: number, map: BucketMap = LATEST_BUCKET_MAP, buckets = LEASE_BUCKETS): number {
  if (map === 1) return ((userId % buckets) + buckets) % buckets;
  return hashId(userId) % buckets;
}

/** The ids among `userIds` whose bucket under `map` is in `buckets`. */
export function usersInBuckets(userIds: Iterable<number>, buckets: ReadonlySet<number>, map: BucketMap = LATEST_BUCKET_MAP, total = LEASE_BUCKETS): number[] {
  const out: number[] = [];
  for (const id of userIds) if (buckets.has(bucketOf(id, map, total))) out.push(id);
  return out;
}
