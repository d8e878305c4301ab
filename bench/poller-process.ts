/**
 * The minimal poller's process (see `lib/poller.ts`): started by the busy-world benchmark with
 * its settings as JSON in BENCH_POLLER_CONFIG and an IPC channel; answers 'stats' with its
 * counters and stops on 'stop' (or after BENCH_POLLER_MAX_SECONDS, so it never outlives a run).
 */
import { z } from 'zod';
import { Poller, pollerConfigSchema } from './lib/poller.js';

const config = pollerConfigSchema.parse(JSON.parse(process.env.BENCH_POLLER_CONFIG ?? '{}'));
const maxSeconds = z.coerce.number().int().positive().parse(process.env.BENCH_POLLER_MAX_SECONDS ?? '3600');
const poller = new Poller(config);
const messageSchema = z.enum(['stats', 'stop']);

const stop = async () => {
  await poller.stop();
  process.disconnect?.();
  process.exit(0);
};
setTimeout(() => void stop(), maxSeconds * 1000).unref();
process.on('disconnect', () => void stop());
process.on('message', (raw) => {
  const message = messageSchema.safeParse(raw);
  if (!message.success) return;
  if (message.data === 'stats') process.send?.({ stats: poller.stats });
  else void stop();
});
poller.start();
process.send?.({ started: true });
