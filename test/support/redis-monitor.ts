/**
 * Redis's MONITOR over a plain socket, for tests that check which connection sent a command (ioredis's
 * own `monitor()` fails with "Command queue state error" on this version). Each command Redis ran
 * comes as one line: `<time> [<db> <client address>] "<command>" "<arg>"…`.
 */
import { connect, type Socket } from 'node:net';

export interface MonitoredCommand {
  /** The command and its arguments, as Redis quoted them (escapes left as they are). */
  args: string[];
  /** The client's address: equal for two commands of one connection. Lua's own calls say `lua`. */
  source: string;
}

export interface RedisMonitor {
  /** What Redis ran since the start (none kept when an `onCommand` takes them). */
  readonly commands: MonitoredCommand[];
  close(): void;
}

/** A command in RESP, as a client sends it. */
const resp = (...args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/**
 * Starts monitoring the Redis at `url` (redis://[:password@]host:port); resolves once Redis said OK.
 * With `onCommand`, each command goes to it and none is kept (a busy minute is many thousands).
 */
export async function monitorRedis(url: string, onCommand?: (command: MonitoredCommand) => void): Promise<RedisMonitor> {
  const { hostname, port, password } = new URL(url);
  const socket: Socket = connect(Number(port || 6379), hostname || '127.0.0.1');
  const commands: MonitoredCommand[] = [];
  let buffer = '';
  // AUTH's OK, then MONITOR's.
  let oksLeft = password ? 2 : 1;
  await new Promise<void>((resolve, reject) => {
    // After the start, an error has nobody to reject: the socket just stops.
    socket.on('error', reject);
    // Decoded as a stream: a character split between two chunks stays whole.
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (line.startsWith('-')) reject(new Error(`Redis refused the monitor: ${line.slice(1)}`));
        if (line === '+OK' && --oksLeft === 0) resolve();
        const m = /^\+[\d.]+ \[\d+ ([^\]]+)\] (.*)$/.exec(line);
        if (!m) continue;
        const command = { source: m[1]!, args: [...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => a[1]!) };
        if (onCommand) onCommand(command);
        else commands.push(command);
      }
    });
    socket.write((password ? resp('AUTH', decodeURIComponent(password)) : '') + resp('MONITOR'));
  });
  return { commands, close: () => socket.destroy() };
}
