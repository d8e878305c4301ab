/**
 * The encryption key's fingerprint, kept in Redis for the whole cluster (`{p}key-check`). Each
 * process may have its own DATA_DIR (a machine each), where a generated key file differs from
 * machine to machine: the local fingerprint file cannot see that, and a front with another key
 * would seal secrets no worker can open. The first process that stores a secret sets the
 * fingerprint (SET NX); a process whose key does not match refuses to start with the embedded
 * bot's one line.
 *
 * As with the file (key-check.ts), the fingerprint is set with the first stored secret, not at a
 * start that may fail, and one with no secret behind it is removed at start (only if it still
 * holds the value read, so a process that has just stored the first secret keeps its own).
 */
import type { Redis } from 'ioredis';
import type { SharedKeyCheck } from '../roles/open-vault.js';

/** Deletes KEYS[1] only while it holds ARGV[1]. */
const DELETE_IF = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export function redisKeyCheck(redis: Pick<Redis, 'get' | 'set' | 'eval'>, prefix: string): SharedKeyCheck {
  const key = `${prefix}key-check`;
  return {
    where: `the fingerprint in Redis (${key})`,
    get: () => redis.get(key),
    async setIfAbsent(fingerprint) {
      return (await redis.set(key, fingerprint, 'NX')) === 'OK';
    },
    async deleteIf(fingerprint) {
      await redis.eval(DELETE_IF, 1, key, fingerprint);
    },
  };
}
