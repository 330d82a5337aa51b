/**
 * What both soaks (`scripts/soak.ts` in one process, `scripts/soak/fleet.ts` over two replicas)
 * send a gateway: the write they start jobs with, a POST with a deadline, and graphql-ws
 * subscriptions whose every result goes to a callback.
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { Simulator } from '../../src/simulator/server.js';

export interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: unknown } }[];
}

export interface JobView {
  id: string;
  status: string;
  error: { code: string } | null;
}

export type WriteAnswer = GraphQLAnswer<{ updateHostNqn: { error: { code: string } | null; job: JobView | null } | null }>;

export const JOB_COMPLETED = 'subscription ($id: ID!) { jobCompleted(id: $id) { id status error { code } } }';

/** How long one operation may take before it counts as hung. */
export const OPERATION_TIMEOUT_MS = 30_000;

const WRITE = /* GraphQL */ `
  mutation ($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) { error { code } job { id status error { code } } }
  }
`;

const NQN_PREFIX = 'nqn.2014-08.org.example:soak-';

/** The three credential headers of the simulator's first tenant, as a client sends them. */
export function credentialHeaders(simulator: Simulator): Record<string, string> {
  const { session, token, tenantId } = simulator.credentials;
  return { authorization: `OAuth ${session}`, 'x-resources-authorization': `Bearer ${token}`, 'x-tenant-id': tenantId };
}

/** The first tenant's hosts `updateHostNqn` accepts (a connected host). */
export function connectedHosts(simulator: Simulator): string[] {
  const { tenantId } = simulator.credentials;
  const hosts = [...simulator.store.hosts.list(tenantId)].filter((host) => host.status === 'Connected').map((host) => host.uuid);
  if (hosts.length === 0) throw new Error('the simulated estate has no connected host to write to');
  return hosts;
}

/** A GraphQL POST to the gateway at `url`, given up after `OPERATION_TIMEOUT_MS`. */
export async function postGraphQL<T>(url: string, headers: Record<string, string>, query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer<T>> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(OPERATION_TIMEOUT_MS),
  });
  return (await response.json()) as GraphQLAnswer<T>;
}

/** Sets `host`'s NQN to one that carries `sequence` (read back with `sequenceOfNqn`), starting a job. */
export function writeNqn(url: string, headers: Record<string, string>, host: string, sequence: number, async: boolean): Promise<WriteAnswer> {
  return postGraphQL(url, headers, WRITE, { input: { uuid: host, nqn: `${NQN_PREFIX}${sequence}`, async } });
}

/** The sequence `writeNqn` put in `nqn`; 0 for an NQN no soak wrote. */
export function sequenceOfNqn(nqn: string | null): number {
  return nqn?.startsWith(NQN_PREFIX) ? Number(nqn.slice(NQN_PREFIX.length)) : 0;
}

/** The error codes of an answer, sorted and once each (`UNTYPED` for an error without one); empty when it has none. */
export function errorCodes(answer: GraphQLAnswer<unknown>): string[] {
  return [...new Set((answer.errors ?? []).map((error) => String(error.extensions?.code ?? 'UNTYPED')))].sort();
}

export interface WsSubscription {
  /** Resolves when the server completes the operation; rejects when it or its socket fails. */
  readonly done: Promise<void>;
  /** Closes the socket (the operation with it). */
  close(): Promise<void>;
}

/** Runs `query` over a graphql-ws socket of its own, handing every result to `onResult`. */
export function subscribeOverWs<T>(
  url: string,
  headers: Record<string, string>,
  query: string,
  variables: Record<string, unknown>,
  onResult: (result: GraphQLAnswer<T>) => void,
): WsSubscription {
  const client = createClient({ url: `${url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0 });
  const done = new Promise<void>((resolve, reject) => {
    client.subscribe<T>(
      { query, variables },
      {
        next: (result) => onResult(result as GraphQLAnswer<T>),
        error: (error) => reject(new Error(describeFailure(error))),
        complete: resolve,
      },
    );
  });
  // A caller may await `done` only later (or never, closing first): its failure is theirs to read, not an unhandled rejection.
  done.catch(() => undefined);
  return {
    done,
    async close() {
      await client.dispose();
    },
  };
}

/** `promise`, or a rejection naming `what` once `ms` have passed. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** graphql-ws fails an operation with an `Error`, a list of GraphQL errors, or the socket's `CloseEvent`. */
function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'code' in error && 'reason' in error) return `socket closed ${String(error.code)} ${String(error.reason)}`.trim();
  return JSON.stringify(error);
}
