/**
 * The records the example tabs name on the demo, picked when the page is served by asking the
 * gateway itself, with the demo's credentials, as a person would: so the tabs answer whatever the
 * simulator's seed and size, and whatever the estate has become since it started.
 */
import type { ExampleValues } from './examples.js';

/** One query for every value; each field may come back empty, leaving its tab a placeholder. */
export const EXAMPLE_VALUES_QUERY = /* GraphQL */ `
  query GraphiQLExampleValues {
    fiberChannelLuns(first: 10) { nodes { scsiLunHostRefs { hostUuid } } }
    hbaDevices(first: 100) { nodes { hostUuid } }
    volumeSnapshotGroups(first: 1) { nodes { uuid } }
    vmInstances(first: 1) { nodes { id } }
  }
`;

interface ExampleValuesData {
  fiberChannelLuns?: { nodes: { scsiLunHostRefs: ({ hostUuid: string } | null)[] }[] } | null;
  hbaDevices?: { nodes: { hostUuid: string | null }[] } | null;
  volumeSnapshotGroups?: { nodes: { uuid: string }[] } | null;
  vmInstances?: { nodes: { id: string }[] } | null;
}

/** How long the demo's answer is waited for, in ms. */
const DEFAULT_TIMEOUT_MS = 3_000;

export interface PickExampleValuesOptions {
  /** Answers a GraphQL request: the gateway's own `yoga.fetch`. */
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** The endpoint's URL, e.g. `http://localhost/graphql` (only its path matters to `yoga.fetch`). */
  endpoint: string;
  /** The demo credentials' headers (`Authorization`, `X-Resources-Authorization`, `X-Tenant-ID`). */
  headers: Record<string, string>;
  /** Beyond this the page is served with placeholders rather than kept waiting. @default DEFAULT_TIMEOUT_MS */
  timeoutMs?: number;
}

/** The values the demo answers; those it could not give (an error, a timeout, no such record) are left out. */
export async function pickExampleValues(options: PickExampleValuesOptions): Promise<ExampleValues> {
  const response = await options.fetch(options.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...options.headers },
    body: JSON.stringify({ query: EXAMPLE_VALUES_QUERY }),
    signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  });
  const { data } = (await response.json()) as { data?: ExampleValuesData | null };
  // A host that sees LUNs, and has HBA ports to show too when one does.
  const withPorts = new Set(data?.hbaDevices?.nodes.map((port) => port.hostUuid));
  const mapped = (data?.fiberChannelLuns?.nodes ?? []).flatMap((lun) => lun.scsiLunHostRefs.flatMap((ref) => (ref === null ? [] : [ref.hostUuid])));
  return {
    hostUuid: mapped.find((hostUuid) => withPorts.has(hostUuid)) ?? mapped[0],
    snapshotGroupUuid: data?.volumeSnapshotGroups?.nodes[0]?.uuid,
    vmId: data?.vmInstances?.nodes[0]?.id,
  };
}
