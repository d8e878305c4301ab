/**
 * The backend process of the scale benchmark (started by `scale-backend.ts`): the sandbox with the
 * bench users' keys and a larger world, and the fake Bot API; answers stats requests and closes
 * on command.
 */
import { z } from 'zod';
import { startFakeTelegram } from '../../src/fake-telegram/server.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { benchKey, commandSchema, type BackendOptions, type BackendReady, type BackendStats } from './scale-backend.js';

const optionsSchema = z.object({
  keys: z.number().int().min(1),
  seed: z.number().int(),
  world: z.object({
    eventsPerService: z.number().int().min(1),
    itemsPerService: z.number().int().min(1),
    meanLifetimeMs: z.number().int().min(1),
    moveEveryMs: z.number().int().min(1),
  }),
}) satisfies z.ZodType<BackendOptions>;

const opts = optionsSchema.parse(JSON.parse(process.env.BENCH_BACKEND ?? 'null'));
const keys = Array.from({ length: opts.keys }, (_, i) => benchKey(i + 1));
const sandbox = await startSandbox({ keys, seed: opts.seed, world: opts.world });
const telegram = await startFakeTelegram();

const sendToParent = (message: BackendReady | BackendStats) => process.send?.(message);

process.on('message', (raw: unknown) => {
  const command = commandSchema.safeParse(raw);
  if (!command.success) return;
  if (command.data.type === 'stats') {
    const c = sandbox.counters();
    const cpu = process.cpuUsage();
    sendToParent({
      type: 'stats',
      breaches: c.breaches,
      status: c.status,
      cpuUs: cpu.user + cpu.system,
      telegramSent: telegram.sendTimes().length,
      telegramEdited: telegram.calls('editMessageText').filter((call) => call.ok).length,
    });
    return;
  }
  void (async () => {
    await telegram.close();
    await sandbox.close();
    // Both servers are closed: nothing is left to finish, and the IPC channel must not keep us alive.
    process.exit(0);
  })();
});

// A parent that died without saying goodbye must not leave the servers running.
process.on('disconnect', () => process.exit(0));

sendToParent({ type: 'ready', urls: sandbox.urls, telegram: { apiRoot: telegram.apiRoot, token: telegram.token } });
