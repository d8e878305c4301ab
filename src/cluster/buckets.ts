/**
 * Users in lease buckets. A cluster's workers share the polling by leasing buckets of users, not
 * single subscriptions: a user's services share one access key, so the key's token plan and its
 * read pace stay inside one worker, and 64 leases renewed every few seconds cost Redis almost
 * nothing whatever the number of users. A user's bucket is their Telegram id modulo 64.
 */

/** How many buckets the users are spread over: the most workers that can share the polling. */
export const LEASE_BUCKETS = 64;

/** The bucket of a user (ids are positive, but a negative one must not give a negative bucket). */
export function bucketOf(userId: number, buckets = LEASE_BUCKETS): number {
  return ((userId % buckets) + buckets) % buckets;
}

/** The ids among `userIds` whose bucket is in `buckets`. */
export function usersInBuckets(userIds: Iterable<number>, buckets: ReadonlySet<number>, total = LEASE_BUCKETS): number[] {
  const out: number[] = [];
  for (const id of userIds) if (buckets.has(bucketOf(id, total))) out.push(id);
  return out;
}
