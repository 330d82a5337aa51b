/**
 * How hosts are read: the cursor family (resourceType `host`) by keys, and each host's network
 * facts (GetHostNetworkFacts), which its bonds and NICs are found in.
 */
import type { GatewayContext } from '../../context.js';
import { GetHostNetworkFacts } from '../../upstream/operations/index.js';
import type { HostNetworkFactsRecord } from '../../upstream/records.js';
import { cursorFamily } from '../kit/families.js';

export const hosts = cursorFamily('host');

export async function loadNetworkFacts(
  hostUuids: string[],
  context: GatewayContext,
): Promise<(HostNetworkFactsRecord | Error)[]> {
  const session = context.session;
  session.requireCredential('resource');
  // The spec has no batch form of GetHostNetworkFacts: one request per distinct host.
  return Promise.all(
    hostUuids.map((uuid) =>
      session.read(GetHostNetworkFacts, { hostUuid: uuid }).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      ),
    ),
  );
}
