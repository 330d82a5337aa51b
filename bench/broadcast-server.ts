/**
 * The fan-out's reference point: a bare `ws` server, no GraphQL, that on `POST /broadcast` sends
 * one message the size of a `jobEvents` delivery to every connected socket. What it measures is
 * what this machine's sockets cost, the floor under the gateway's fan-out figure. A separate
 * process, like the gateway; prints `{"url": ...}` when listening.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

const server = createServer((req, res) => {
  req.resume();
  req.once('end', () => {
    if (req.method !== 'POST' || req.url !== '/broadcast') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(204).end();
    const message = JSON.stringify({
      id: crypto.randomUUID(),
      type: 'next',
      payload: { data: { jobEvents: { id: crypto.randomUUID().replaceAll('-', ''), operation: 'updateHostNqn', status: 'SUCCEEDED', finishedAt: new Date().toISOString() } } },
    });
    for (const socket of sockets.clients) socket.send(message);
  });
});
const sockets = new WebSocketServer({ server });

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    for (const socket of sockets.clients) socket.terminate();
    server.close(() => process.exit(0));
  });
}
