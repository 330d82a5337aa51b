/**
 * How the bench's reference servers run as processes of their own (`processes.ts` starts them):
 * listen on loopback at `PORT` (0: any free port), announce `{"url": ...}` on stdout, and on
 * SIGTERM or SIGINT close the server, then `release` what it holds, and exit.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function serveAnnounced(server: Server, release: () => Promise<void>): void {
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server.close();
      server.closeAllConnections();
      void release().then(() => process.exit(0));
    });
  }
}
