/**
 * The calls the replica tests (and scripts that run replicas) make: a job they start
 * (`updateHostNqn` on a connected host) and read back, and a GraphQL POST to any replica. Free of
 * vitest, so a script may import it.
 */
import type { Simulator } from '../../src/simulator/server.js';
import type { GraphQLResponse } from './harness.js';

/** The job the replica tests start: a host's NQN set, answered with the job. */
export const UPDATE_NQN = /* GraphQL */ `
  mutation Update($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) { job { id status } }
  }
`;

/** A finished `updateHostNqn` job as the subscriptions and `job(id:)` answer it. */
export const JOB_FIELDS = 'id status operation payload { ... on UpdateHostNqnPayload { host { uuid nqn } } }';

export interface JobResult {
  id: string;
  status: string;
  operation: string;
  payload: { host: { uuid: string; nqn: string } | null } | null;
}

/** A POST to the replica at `url`. */
export async function gql<T = Record<string, unknown>>(url: string, query: string, variables: Record<string, unknown>, headers: Record<string, string>): Promise<GraphQLResponse<T>> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, ...((await response.json()) as Omit<GraphQLResponse<T>, 'status'>) };
}

/** A valid NVMe qualified name, different for each `suffix`. */
export function nqn(suffix: string): string {
  return `nqn.2014-08.org.nvmexpress:uuid:${suffix.padStart(8, '0')}-0000-4000-8000-000000000000`;
}

/** A host `updateHostNqn` accepts. */
export function connectedHost(simulator: Simulator): string {
  const host = [...simulator.store.hosts.list(simulator.credentials.tenantId)].find((candidate) => candidate.status === 'Connected');
  if (!host) throw new Error('the estate has no connected host');
  return host.uuid;
}
