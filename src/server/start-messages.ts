/**
 * What `npm start` tells the person who ran it: where GraphiQL is and, when the embedded simulator
 * is the upstream, its demo credentials and one `curl` that works as pasted; and, when the port is
 * taken, which one and how to choose another, instead of a stack trace.
 */
import type { SimulatorCredentials } from '../simulator/server.js';

/** A query that shows the demo estate answering. */
const DEMO_QUERY = '{ vmInstances(first: 3) { totalCount nodes { name state host { name } } } }';

/**
 * The lines printed once the gateway listens. The credentials are the embedded simulator's own
 * demo credentials (never a real upstream's: with `UPSTREAM_URL` set, `credentials` is undefined).
 */
export function startedMessage(url: string, credentials: SimulatorCredentials | undefined, trustedDocuments?: string): string {
  const lines = [`GraphiQL: ${url}/graphql`];
  if (trustedDocuments !== undefined) {
    // A pasted text query would only be refused (PERSISTED_QUERY_ONLY): say how to name an operation instead.
    lines.push(`Only the operations of ${trustedDocuments} run (TRUSTED_DOCUMENTS): send their id, e.g. -d '{"documentId":"<id>"}'.`);
  }
  if (credentials !== undefined) {
    const headers: [string, string][] = [
      ['Authorization', `OAuth ${credentials.session}`],
      ['X-Resources-Authorization', `Bearer ${credentials.token}`],
      ['X-Tenant-ID', credentials.tenantId],
    ];
    const curl = [
      `  curl -s ${url}/graphql`,
      `-H ${shellQuote('content-type: application/json')}`,
      ...headers.map(([name, value]) => `-H ${shellQuote(`${name}: ${value}`)}`),
      `-d ${shellQuote(JSON.stringify({ query: DEMO_QUERY }))}`,
    ].join(' ');
    lines.push(
      '',
      'The upstream is the embedded simulator, with demo data. Its credentials (already filled in in GraphiQL):',
      ...headers.map(([name, value]) => `  ${name}: ${value}`),
      '',
      // With a manifest in force the text query would be refused: no curl to paste.
      ...(trustedDocuments === undefined ? ['Try it:', curl, ''] : []),
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The line printed when the gateway cannot listen, or undefined when `error` is not a listen
 * failure the person can fix by choosing another address.
 */
export function listenFailureMessage(error: unknown, port: number, host: string): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `port ${port} on ${host}`;
  if (code === 'EADDRINUSE') {
    return `Cannot listen: ${where} is already in use (another gateway, or another program). Set PORT to choose another port, e.g. PORT=${port === 65_535 ? 4001 : port + 1} npm start\n`;
  }
  if (code === 'EACCES') return `Cannot listen: ${where} needs privileges this process lacks. Set PORT to a port above 1023, e.g. PORT=4000 npm start\n`;
  if (code === 'EADDRNOTAVAIL') return `Cannot listen: ${host} is not an address of this machine. Set HOST to one, e.g. HOST=0.0.0.0 npm start\n`;
  return undefined;
}

/** `text` in single quotes for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
