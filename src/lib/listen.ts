/** Starting an HTTP server and learning its port, shared by the sandbox, the Bot API stand-in and the operator port. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on `host:port` (port 0: any free port) and resolves with the port; rejects if it cannot bind. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
