/**
 * Both stores as systems under test for a contract run against each: `open` a fresh one and
 * `reopen` it as a restart would (the embedded one on its DATA_DIR, the Redis one on its prefix).
 * Every store opened is closed after the file's tests.
 */
import { afterAll } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import type { Store } from '../../src/store/port.js';
import { openStore } from '../../src/store/store.js';
import { removeTempDirs, tempDir } from './fixtures.js';
import type { RedisStores } from './redis-fixtures.js';

export interface Sut {
  open(): Promise<Store>;
  reopen(s: Store): Promise<Store>;
}

export function storeSuts(stores: RedisStores): { lowdb: Sut; redisSut: Sut } {
  const opened: Store[] = [];
  const dirs = new Map<Store, string>();
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
    await removeTempDirs();
  });
  const lowdb: Sut = {
    async open() {
      const dir = await tempDir();
      const s = await openStore({ dataDir: dir, logger: silentLogger, debounceMs: 5 });
      dirs.set(s, dir);
      opened.push(s);
      return s;
    },
    async reopen(s) {
      await s.close();
      const again = await openStore({ dataDir: dirs.get(s)!, logger: silentLogger, debounceMs: 5 });
      dirs.set(again, dirs.get(s)!);
      opened.push(again);
      return again;
    },
  };
  const redisSut: Sut = {
    open: () => stores.open(),
    async reopen(s) {
      const prefix = stores.prefixOf(s);
      await s.close();
      return stores.open({ prefix });
    },
  };
  return { lowdb, redisSut };
}
