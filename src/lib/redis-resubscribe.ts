/**
 * Subscriber connections that subscribe again after a reconnect themselves. ioredis does it on its
 * own (`autoResubscribe`), but sends that SUBSCRIBE with no handler: a connection closed while it
 * is in flight — a store or an outbox closing just after Redis came back — rejects it unhandled,
 * which stops the process (ioredis 5.11 and 6.0; fixed upstream in redis/ioredis#2187, not released
 * yet). Open the connection with `NO_AUTO_RESUBSCRIBE` and subscribe through `resubscribing`: a
 * failed SUBSCRIBE after a reconnect goes to `onTrouble`, and the next reconnect tries again.
 */
import type { Redis } from 'ioredis';

/** The option to open a subscriber connection with. */
export const NO_AUTO_RESUBSCRIBE = { autoResubscribe: false } as const;

/** Subscribes `conn` to a channel now and after every reconnect. */
export type Subscribe = (channel: string) => Promise<unknown>;

export function resubscribing(conn: Redis, onTrouble: (err: unknown) => void): Subscribe {
  const channels = new Set<string>();
  let lost = false;
  conn.on('close', () => {
    lost = true;
  });
  conn.on('ready', () => {
    if (!lost) return;
    lost = false;
    if (channels.size > 0) conn.subscribe(...channels).catch(onTrouble);
  });
  return (channel) => {
    channels.add(channel);
    return conn.subscribe(channel);
  };
}
