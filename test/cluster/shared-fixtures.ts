/**
 * "Processes" of a clustered bot inside one test: each a service client of its own
 * (createSharedServiceClient) on its own ioredis connection, all on one ManualClock that the
 * limit scripts follow too (their clock offset is the ManualClock's distance from real time, so
 * Redis's TIME moves with it), against one sandbox.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import type { ManualClock } from '../../src/clock.js';
import { createSharedServiceClient, type SharedServiceClientOptions } from '../../src/cluster/shared-client.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import type { Sandbox, SandboxKey } from '../../src/sandbox/index.js';
import type { ServiceClientOptions, ServiceClientWithLimits } from '../../src/service/client.js';
import type { AccessKeyRef } from '../../src/service/client-types.js';
import { Vault } from '../../src/store/vault.js';
import { configFor } from '../service/helpers.js';

/** One ENCRYPTION_KEY for every process of a test cluster (as the operator sets it). */
export const CLUSTER_KEY = 'ab'.repeat(32);

export interface TestProcess {
  client: ServiceClientWithLimits;
  redis: Redis;
}

export interface ClusterOptions {
  url: string;
  prefix: string;
  clock: ManualClock;
  sandbox: Sandbox;
}

/** Starts and stops the processes of one test. */
export class TestCluster {
  readonly processes: TestProcess[] = [];
  private readonly dirs: string[] = [];

  constructor(private readonly opts: ClusterOptions) {}

  /** The key prefix of this cluster's processes. */
  get prefix(): string {
    return this.opts.prefix;
  }

  async start(
    overrides: Partial<ServiceClientOptions['config']> = {},
    extra: {
      logger?: Logger;
      redis?: RedisOptions;
      /** This process's own clock (a machine whose clock is off); Redis's clock still follows the cluster's. */
      localClock?: ManualClock;
    } & Partial<
      Pick<SharedServiceClientOptions, 'redisTimeoutMs' | 'tokenLock'>
    > = {},
  ): Promise<TestProcess> {
    const { clock, sandbox } = this.opts;
    const dataDir = await mkdtemp(join(tmpdir(), 'bb-cluster-proc-'));
    this.dirs.push(dataDir);
    const redis = new Redis(this.opts.url, { lazyConnect: true, maxRetriesPerRequest: 1, ...extra.redis });
    // A connection that is down is the test's subject, not a crash.
    redis.on('error', () => undefined);
    await redis.connect();
    const vault = await Vault.open({ dataDir, envKey: CLUSTER_KEY, logger: silentLogger });
    const { logger, redis: _redis, localClock, ...shared } = extra;
    const client = createSharedServiceClient({
      config: configFor(sandbox.origin, { DATA_DIR: dataDir, ...overrides }),
      logger: logger ?? silentLogger,
      clock: localClock ?? clock,
      random: () => 0.5,
      redis,
      prefix: this.opts.prefix,
      vault,
      // Redis's clock moves with the ManualClock.
      clockOffsetMs: () => clock.now() - Date.now(),
      ...shared,
    });
    const proc = { client, redis };
    this.processes.push(proc);
    return proc;
  }

  async stop(): Promise<void> {
    for (const p of this.processes) {
      await p.client.close();
      p.redis.disconnect();
    }
    this.processes.length = 0;
    for (const dir of this.dirs) await rm(dir, { recursive: true, force: true });
  }
}

/** A key pair of the sandbox as the client takes it. */
export function refOf(k: SandboxKey): AccessKeyRef {
  return { accessKey: k.accessKey, revealSecret: () => k.secret };
}
