/**
 * The direct client behind a tiny HTTP server, so the load generator drives it exactly as it
 * drives the gateway: any request runs the dashboard with the credentials in its headers and
 * answers the JSON. A separate process, like the gateway. Prints `{"url": ...}` when listening.
 */
import { createServer } from 'node:http';
import { createDirectClient, type DirectFilter } from './direct-client.js';
import { serveAnnounced } from './serve.js';

const upstreamUrl = process.env.UPSTREAM_URL;
if (!upstreamUrl) throw new Error('UPSTREAM_URL is required');
const client = createDirectClient(upstreamUrl);

const server = createServer((req, res) => {
  // The body is the GraphQL request the gateway receives: only its variables are read (the
  // distinct-dashboards scenario's filter and order), the document is the dashboard's.
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('end', () => {
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    client
      .dashboard({
        authorization: header('authorization') ?? '',
        cursorAuthorization: header('x-resources-authorization') ?? '',
        tenantId: header('x-tenant-id'),
      }, filterOf(Buffer.concat(chunks).toString('utf8')))
      .then(
        (result) => {
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(result));
        },
        (error: unknown) => {
          res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(error instanceof Error ? error.message : String(error));
        },
      );
  });
});

function filterOf(body: string): DirectFilter {
  if (!body.includes('"variables"')) return {};
  const variables = (JSON.parse(body) as { variables?: DirectFilter | null }).variables ?? {};
  return { filter: variables.filter, orderBy: variables.orderBy };
}

serveAnnounced(server, () => client.close());
