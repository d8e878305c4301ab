/**
 * BB_LOCAL_ADDRESS: the client's own connections leave from that address (undici's localAddress),
 * so a service that counts limits per client address counts them there. The sandbox sees the
 * remote address of each request; dictionaries are counted under it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createServiceClient, type ServiceClientWithLimits } from '../../src/service/client.js';
import { configFor } from './helpers.js';

describe('BB_LOCAL_ADDRESS', () => {
  let sandbox: Sandbox | undefined;
  let client: ServiceClientWithLimits | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await client?.close();
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    client = undefined;
    sandbox = undefined;
  });

  const dictionaryUses = async (localAddress: string | undefined): Promise<Record<string, number>> => {
    const clock = new ManualClock();
    dataDir = await mkdtemp(join(tmpdir(), 'bb-local-address-'));
    sandbox = await startSandbox({ clock, limits: { scope: 'address' } });
    client = createServiceClient({
      config: configFor(sandbox.origin, { DATA_DIR: dataDir, ...(localAddress ? { BB_LOCAL_ADDRESS: localAddress } : {}) }),
      logger: silentLogger,
      clock,
    });
    expect(await client.dictionaries('en')).toBeDefined();
    return sandbox.counters().byKeyHost;
  };

  it('sends every request from the configured address', async () => {
    expect(await dictionaryUses('127.0.0.2')).toEqual({ '127.0.0.2|/dicts|dicts': 1 });
  });

  it('leaves the choice to the system when it is not set', async () => {
    expect(await dictionaryUses(undefined)).toEqual({ '127.0.0.1|/dicts|dicts': 1 });
  });
});
