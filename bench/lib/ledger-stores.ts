/**
 * One user's ledger filled with `positions` in the embedded store, then in Redis (REDIS_URL, else a
 * private redis-server when one is on the PATH), and `measure` run on each: the benches of the
 * ledger at its bound share it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisServerAvailable, startPrivateRedis, type PrivateRedis } from '../../src/cluster/redis-server.js';
import type { Position } from '../../src/ledger/model.js';
import { silentLogger } from '../../src/logger.js';
import type { Store } from '../../src/store/port.js';
import { openRedisStore } from '../../src/store/redis-store.js';
import { openStore } from '../../src/store/store.js';
import type { BenchResult } from './result.js';

type Figures = BenchResult['figures'];

export async function onEachLedgerStore(name: string, userId: number, positions: readonly Position[], measure: (store: Store, storeName: string) => Promise<Figures>): Promise<Figures> {
  const out: Figures = [];
  const dir = await mkdtemp(join(tmpdir(), `bench-${name}-`));
  const store = await openStore({ dataDir: dir, logger: silentLogger });
  try {
    for (const p of positions) await store.ledger.put(userId, p);
    await store.flush();
    out.push(...(await measure(store, 'embedded')));
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
  let server: PrivateRedis | undefined;
  const url = process.env.REDIS_URL ?? (redisServerAvailable() ? (server = await startPrivateRedis()).url : undefined);
  if (url) {
    const redis = await openRedisStore({ url, prefix: `bench-${name}:${process.pid}:`, logger: silentLogger });
    try {
      for (const p of positions) await redis.ledger.put(userId, p);
      out.push(...(await measure(redis, 'Redis')));
      await redis.ledger.deleteUser(userId);
      redis.deleteUser(userId);
    } finally {
      await redis.close();
      await server?.dispose();
    }
  }
  return out;
}
