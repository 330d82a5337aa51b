/**
 * The host-bond, directory and SNS mutations against the simulator over real HTTP: the exact
 * upstream request each one makes (method, path, query, body, the gateway's own X-Job-UUID and
 * X-Web-Hook), the state read back afterwards, upstream failures in the payload's `error`, and
 * bad GraphQL input rejected before any upstream request. The CBT task ones: cbt-task/mutations.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_MODES, type Harness } from '../support/harness.js';
import { mutationSuite, UNKNOWN_UUID, type PayloadBase } from '../support/mutation-suite.js';

describe.each(WEBHOOK_MODES)('host bond, directory and SNS mutations (webhooks $mode)', ({ dropWebhooks }) => {
  const suite = mutationSuite(dropWebhooks);
  const { take, mutate, expectSent } = suite;
  let harness: Harness;
  let tenantId: string;

  beforeAll(() => {
    ({ harness, tenantId } = suite);
  });

  // -------------------------------------------------------------------------------------------
  describe('setIpOnHostNetworkBonding', () => {
    const SELECTION = 'bonding { id uuid hostUuid ipAddresses gateway }';
    interface Payload extends PayloadBase {
      bonding: { id: string; uuid: string; hostUuid: string; ipAddresses: string[]; gateway: string | null } | null;
    }

    function bondOf(connected: boolean): { bondUuid: string; hostUuid: string } {
      const host = take(
        harness.simulator.store.hosts.list(tenantId),
        (candidate) => (candidate.status === 'Connected') === connected,
        connected ? 'connected host' : 'disconnected host',
      );
      const bond = harness.simulator.store.bondings.by('hostUuid', host.uuid, tenantId)[0];
      if (!bond) throw new Error(`host ${host.uuid} has no bond`);
      return { bondUuid: bond.uuid, hostUuid: host.uuid };
    }

    it('posts the address in params and returns the bond with it, as network facts then read', async () => {
      const { bondUuid, hostUuid } = bondOf(true);
      const payload = await mutate<Payload>('setIpOnHostNetworkBonding', SELECTION, {
        bondingUuid: bondUuid,
        ipAddress: '10.20.30.40',
        netmask: '255.255.255.0',
        isDefaultRoute: true,
        clientMutationId: 'bond-1',
      });
      expect(payload).toMatchObject({
        clientMutationId: 'bond-1',
        error: null,
        job: { status: 'SUCCEEDED', operation: 'SET_IP_ON_HOST_NETWORK_BONDING' },
        bonding: { uuid: bondUuid, hostUuid, ipAddresses: ['10.20.30.40/24'], gateway: '10.20.30.1' },
      });
      expectSent(payload.job.id, {
        operation: 'SetIpOnHostNetworkBonding',
        method: 'POST',
        path: `/svc/v1/hosts/bondings/${bondUuid}/ip`,
        body: { params: { ipAddress: '10.20.30.40', netmask: '255.255.255.0', isDefaultRoute: true } },
      });

      const readBack = await harness.gql<{ host: { networkFacts: { bondings: { uuid: string; ipAddresses: string[]; gateway: string | null }[] } } }>(
        'query($uuid: Uuid!) { host(uuid: $uuid) { networkFacts { bondings { uuid ipAddresses gateway } } } }',
        { uuid: hostUuid },
      );
      expect(readBack.data!.host.networkFacts.bondings).toContainEqual({ uuid: bondUuid, ipAddresses: ['10.20.30.40/24'], gateway: '10.20.30.1' });
      // The payload's bond is the same node the network facts give.
      const node = await harness.gql<{ node: { uuid: string } }>('query($id: ID!) { node(id: $id) { ... on HostNetworkBonding { uuid } } }', {
        id: payload.bonding!.id,
      });
      expect(node.data!.node.uuid).toBe(bondUuid);
    });

    it('reports a disconnected host as SYS.1006 caused by HOST.1010, and leaves the bond alone', async () => {
      const { bondUuid } = bondOf(false);
      const before = [...harness.simulator.store.bondings.get(tenantId, bondUuid)!.ipAddresses];
      const payload = await mutate<Payload>('setIpOnHostNetworkBonding', SELECTION, {
        bondingUuid: bondUuid,
        ipAddress: '10.20.31.40',
        netmask: '255.255.255.0',
      });
      expect(payload).toMatchObject({ bonding: null, error: { code: 'SYS.1006', cause: { code: 'HOST.1010' } }, job: { status: 'FAILED' } });
      expect(harness.simulator.store.bondings.get(tenantId, bondUuid)!.ipAddresses).toEqual(before);
    });

    it('reports an unknown bond as SYS.1003 and an address without netmask as SYS.1007', async () => {
      const unknown = await mutate<Payload>('setIpOnHostNetworkBonding', SELECTION, { bondingUuid: UNKNOWN_UUID, ipAddress: '10.0.0.1', netmask: '255.0.0.0' });
      expect(unknown).toMatchObject({ bonding: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });

      const { bondUuid } = bondOf(true);
      const invalid = await mutate<Payload>('setIpOnHostNetworkBonding', SELECTION, { bondingUuid: bondUuid, ipAddress: '10.0.0.1' });
      expect(invalid).toMatchObject({ bonding: null, error: { code: 'SYS.1007' } });
      expectSent(invalid.job.id, {
        operation: 'SetIpOnHostNetworkBonding',
        method: 'POST',
        path: `/svc/v1/hosts/bondings/${bondUuid}/ip`,
        body: { params: { ipAddress: '10.0.0.1' } },
      });
    });
  });

  // -------------------------------------------------------------------------------------------

  describe('deleteDirectory', () => {
    interface Payload extends PayloadBase {
      deletedDirectoryUuid: string | null;
    }

    /** The directory's items in the cursor family, asked of the upstream directly. */
    async function cursorDirectories(uuids: string[]): Promise<string[]> {
      const query = new URLSearchParams({ resourceType: 'directory', filter: `uuid:in:${uuids.join(',')}` });
      const response = await fetch(`${harness.simulator.url}/api/v1/resources/cursor-query?${query}`, {
        headers: { authorization: harness.headers['x-resources-authorization'], 'x-tenant-id': tenantId },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { items: { uuid: string }[] };
      return body.items.map((item) => item.uuid);
    }

    it('sends uuid in the body and the directory leaves the cursor family', async () => {
      const leaf = take(harness.simulator.store.directories.list(tenantId), (directory) => directory.parentUuid !== null, 'leaf directory');
      expect(await cursorDirectories([leaf.uuid])).toEqual([leaf.uuid]);
      const payload = await mutate<Payload>('deleteDirectory', 'deletedDirectoryUuid', { uuid: leaf.uuid });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, deletedDirectoryUuid: leaf.uuid });
      expectSent(payload.job.id, { operation: 'DeleteDirectory', method: 'DELETE', path: '/svc/v1/delete/directory', body: { params: { uuid: leaf.uuid } } });
      expect(await cursorDirectories([leaf.uuid])).toEqual([]);
      expect(harness.simulator.store.directories.get(tenantId, leaf.uuid)).toBeUndefined();
    });

    it('a directory with sub-directories needs ENFORCING, which deletes the subtree', async () => {
      const store = harness.simulator.store;
      const root = take(
        store.directories.list(tenantId),
        (directory) => directory.parentUuid === null && store.directories.by('parentUuid', directory.uuid, tenantId).length > 0,
        'directory with sub-directories',
      );
      const subtree = [root.uuid, ...store.directories.by('parentUuid', root.uuid, tenantId).map((child) => child.uuid)];

      const refused = await mutate<Payload>('deleteDirectory', 'deletedDirectoryUuid', { uuid: root.uuid, deleteMode: 'PERMISSIVE' });
      expect(refused).toMatchObject({ deletedDirectoryUuid: null, error: { code: 'SYS.1006' }, job: { status: 'FAILED' } });
      expect((await cursorDirectories(subtree)).sort()).toEqual([...subtree].sort());

      const payload = await mutate<Payload>('deleteDirectory', 'deletedDirectoryUuid', { uuid: root.uuid, deleteMode: 'ENFORCING' });
      expect(payload).toMatchObject({ error: null, deletedDirectoryUuid: root.uuid });
      expectSent(payload.job.id, {
        operation: 'DeleteDirectory',
        method: 'DELETE',
        path: '/svc/v1/delete/directory',
        body: { params: { uuid: root.uuid, deleteMode: 'Enforcing' } },
      });
      expect(await cursorDirectories(subtree)).toEqual([]);
    });

    it('reports an unknown directory as SYS.1003', async () => {
      const payload = await mutate<Payload>('deleteDirectory', 'deletedDirectoryUuid', { uuid: UNKNOWN_UUID });
      expect(payload).toMatchObject({ deletedDirectoryUuid: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('SNS', () => {
    function endpointNamed(name: string): { uuid: string; receivers: string[] } {
      const endpoint = take(harness.simulator.store.snsEndpoints.list(tenantId), (candidate) => candidate.name === name, `endpoint ${name}`);
      return { uuid: endpoint.uuid, receivers: [...endpoint.receivers] };
    }

    interface PlatformPayload extends PayloadBase {
      platform: { uuid: string; state: string } | null;
    }

    async function platformState(uuid: string): Promise<string> {
      const response = await harness.gql<{ snsApplicationPlatforms: { nodes: { state: string }[] } }>(
        'query($uuid: Uuid!) { snsApplicationPlatforms(filter: { uuids: [$uuid] }) { nodes { state } } }',
        { uuid },
      );
      return response.data!.snsApplicationPlatforms.nodes[0]!.state;
    }

    it('changeSnsApplicationPlatformState disables and enables a platform through its action key', async () => {
      const platform = take(harness.simulator.store.snsPlatforms.list(tenantId), (candidate) => candidate.type === 'SMS', 'SMS platform');
      const disabled = await mutate<PlatformPayload>('changeSnsApplicationPlatformState', 'platform { uuid state }', {
        uuid: platform.uuid,
        stateEvent: 'DISABLE',
      });
      expect(disabled).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, platform: { uuid: platform.uuid, state: 'DISABLED' } });
      expectSent(disabled.job.id, {
        operation: 'ChangeSNSApplicationPlatformState',
        method: 'PUT',
        path: `/svc/v1/sns/application-platforms/${platform.uuid}/actions`,
        body: { changeSNSApplicationPlatformState: { stateEvent: 'disable' } },
      });
      expect(await platformState(platform.uuid)).toBe('DISABLED');

      const enabled = await mutate<PlatformPayload>('changeSnsApplicationPlatformState', 'platform { uuid state }', {
        uuid: platform.uuid,
        stateEvent: 'ENABLE',
      });
      expect(enabled).toMatchObject({ error: null, platform: { state: 'ENABLED' } });
      expectSent(enabled.job.id, {
        operation: 'ChangeSNSApplicationPlatformState',
        method: 'PUT',
        path: `/svc/v1/sns/application-platforms/${platform.uuid}/actions`,
        body: { changeSNSApplicationPlatformState: { stateEvent: 'enable' } },
      });
      expect(await platformState(platform.uuid)).toBe('ENABLED');
    });

    it('changeSnsApplicationPlatformState reports an unknown platform as SYS.1003', async () => {
      const payload = await mutate<PlatformPayload>('changeSnsApplicationPlatformState', 'platform { uuid state }', {
        uuid: UNKNOWN_UUID,
        stateEvent: 'ENABLE',
      });
      expect(payload).toMatchObject({ platform: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });
    });

    interface EndpointPayload extends PayloadBase {
      endpoint: { uuid: string; name: string; description: string | null; url: string | null; username: string | null; type: string } | null;
    }
    const ENDPOINT = 'endpoint { uuid name description url username type }';

    it('updateSnsHttpEndpoint sends every given field in the action object and the endpoint reads back changed', async () => {
      const { uuid } = endpointNamed('pager-webhook');
      const changes = {
        url: 'https://pager.example.org/hook?team=ops',
        username: 'pager-bot',
        password: 's3cret',
        name: 'pager-webhook-v2',
        description: 'moved to the new pager',
      };
      const payload = await mutate<EndpointPayload>('updateSnsHttpEndpoint', ENDPOINT, { uuid, ...changes });
      const { password: _password, ...visible } = changes;
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' }, endpoint: { uuid, type: 'HTTP', ...visible } });
      expectSent(payload.job.id, {
        operation: 'UpdateSNSHttpEndpoint',
        method: 'PUT',
        path: `/svc/v1/sns/application-endpoints/http/${uuid}/actions`,
        body: { updateSNSHttpEndpoint: changes },
      });
      const readBack = await harness.gql<{ snsApplicationEndpoints: { nodes: Record<string, unknown>[] } }>(
        'query($uuid: Uuid!) { snsApplicationEndpoints(filter: { uuids: [$uuid] }) { nodes { url username name description } } }',
        { uuid },
      );
      expect(readBack.data!.snsApplicationEndpoints.nodes).toEqual([visible]);
      expect(harness.simulator.store.snsEndpoints.get(tenantId, uuid)!.password).toBe('s3cret');
    });

    it('updateSnsHttpEndpoint reports a non-http URL as SYS.1007 and an endpoint of another type as SYS.1003', async () => {
      const { uuid } = endpointNamed('ops-webhook');
      const before = harness.simulator.store.snsEndpoints.get(tenantId, uuid)!.url;
      const invalid = await mutate<EndpointPayload>('updateSnsHttpEndpoint', ENDPOINT, { uuid, url: 'ftp://files.example.org/' });
      expect(invalid).toMatchObject({ endpoint: null, error: { code: 'SYS.1007' }, job: { status: 'FAILED' } });
      expect(harness.simulator.store.snsEndpoints.get(tenantId, uuid)!.url).toBe(before);

      const mail = endpointNamed('ops-mail');
      const wrongType = await mutate<EndpointPayload>('updateSnsHttpEndpoint', ENDPOINT, { uuid: mail.uuid, name: 'renamed' });
      expect(wrongType).toMatchObject({ endpoint: null, error: { code: 'SYS.1003' } });
    });

    interface ReceiverPayload extends PayloadBase {
      endpoint: { uuid: string; receivers: { phoneNumber: string }[] } | null;
    }
    const RECEIVERS = 'endpoint { uuid receivers { phoneNumber } }';

    async function receiversOf(uuid: string): Promise<string[]> {
      const response = await harness.gql<{ snsApplicationEndpoints: { nodes: { receivers: { phoneNumber: string }[] }[] } }>(
        'query($uuid: Uuid!) { snsApplicationEndpoints(filter: { uuids: [$uuid] }) { nodes { receivers { phoneNumber } } } }',
        { uuid },
      );
      return response.data!.snsApplicationEndpoints.nodes[0]!.receivers.map((receiver) => receiver.phoneNumber);
    }

    it('removeSnsSmsReceiver URL-encodes the phone number, sends deleteMode in body and query, and the receiver is gone', async () => {
      const { uuid, receivers } = endpointNamed('oncall-sms');
      const [removed, ...kept] = receivers;
      expect(removed).toMatch(/^\+/);
      const payload = await mutate<ReceiverPayload>('removeSnsSmsReceiver', RECEIVERS, {
        endpointUuid: uuid,
        phoneNumber: removed,
        deleteMode: 'ENFORCING',
      });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' } });
      expect(payload.endpoint).toEqual({ uuid, receivers: kept.map((phoneNumber) => ({ phoneNumber })) });
      expectSent(payload.job.id, {
        operation: 'RemoveSNSSmsReceiver',
        method: 'DELETE',
        path: `/svc/v1/sns/sms-endpoints/${uuid}/receivers/${encodeURIComponent(removed!)}`,
        query: 'deleteMode=Enforcing',
        body: { params: { deleteMode: 'Enforcing' } },
      });
      expect(await receiversOf(uuid)).toEqual(kept);
    });

    it('removeSnsSmsReceiver without deleteMode sends neither body nor query; an unknown number is SYS.1003', async () => {
      const { uuid, receivers } = endpointNamed('manager-sms');
      const payload = await mutate<ReceiverPayload>('removeSnsSmsReceiver', RECEIVERS, { endpointUuid: uuid, phoneNumber: receivers[1] });
      expect(payload).toMatchObject({ error: null, job: { status: 'SUCCEEDED' } });
      expectSent(payload.job.id, {
        operation: 'RemoveSNSSmsReceiver',
        method: 'DELETE',
        path: `/svc/v1/sns/sms-endpoints/${uuid}/receivers/${encodeURIComponent(receivers[1]!)}`,
        body: null,
      });
      expect(await receiversOf(uuid)).toEqual(receivers.filter((number) => number !== receivers[1]));

      const unknown = await mutate<ReceiverPayload>('removeSnsSmsReceiver', RECEIVERS, { endpointUuid: uuid, phoneNumber: '+10000000000' });
      expect(unknown).toMatchObject({ endpoint: null, error: { code: 'SYS.1003' }, job: { status: 'FAILED' } });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('bad GraphQL input', () => {
    it.each([
      ['a malformed Uuid', 'deleteDirectory', 'deletedDirectoryUuid', { uuid: 'NOT-A-UUID' }, /input\.uuid.*Uuid must be 32 hexadecimal digits, or the hyphenated/, ['input', 'uuid']],
      ['a Uuid with a hyphen out of place', 'deleteCbtTask', 'deletedCbtTaskUuid', { uuid: `${'a'.repeat(9)}-${'a'.repeat(23)}` }, /input\.uuid.*Uuid must be 32 hexadecimal digits/, ['input', 'uuid']],
      ['a malformed Uuid in a list', 'exportNbdVolumes', 'vmInstance { uuid }', { volumeUuids: ['123'], vmInstanceUuid: UNKNOWN_UUID }, /input\.volumeUuids\[0\].*Uuid must be/, ['input', 'volumeUuids', '0']],
      ['an unknown DeleteMode', 'deleteDirectory', 'deletedDirectoryUuid', { uuid: UNKNOWN_UUID, deleteMode: 'Permissive' }, /input\.deleteMode.*"Permissive".*DeleteMode/, ['input', 'deleteMode']],
      ['an unknown SnsStateEvent', 'changeSnsApplicationPlatformState', 'platform { uuid }', { uuid: UNKNOWN_UUID, stateEvent: 'enable' }, /input\.stateEvent.*"enable".*SnsStateEvent/, ['input', 'stateEvent']],
      ['a missing required field', 'createCbtTask', 'cbtTask { uuid }', { name: 'x', resourceUuids: [UNKNOWN_UUID] }, /Field "taskType" of required type .* was not provided/, ['input', 'taskType']],
    ])('rejects %s before any upstream request, naming the input at fault', async (_case, name, selection, input, message, field) => {
      harness.resetStats();
      const inputType = `${name.charAt(0).toUpperCase()}${name.slice(1)}Input`;
      const response = await harness.gql(`mutation($input: ${inputType}!) { ${name}(input: $input) { ${selection} } }`, { input });
      expect(response.errors).toHaveLength(1);
      expect(response.errors?.[0]?.message).toMatch(message);
      expect(response.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(response.errors?.[0]?.extensions?.field).toEqual(field);
      expect(response.data ?? null).toBeNull();
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('refuses a phone number that is a dot segment as a VALIDATION user error on its input field, without a job or an upstream request', async () => {
      harness.resetStats();
      const payload = await mutate<PayloadBase & { status: string; userErrors: unknown[] }>('removeSnsSmsReceiver', 'status userErrors { message field code upstream { code } } endpoint { uuid } job { id }', {
        endpointUuid: UNKNOWN_UUID,
        phoneNumber: '..',
        clientMutationId: 'dots',
      });
      expect(payload).toEqual({
        clientMutationId: 'dots',
        status: 'FAILED',
        userErrors: [{ message: 'phoneNumber ".." is not a phone number.', field: ['input', 'phoneNumber'], code: 'VALIDATION', upstream: null }],
        endpoint: null,
        error: null,
        job: null,
      });
      expect(harness.upstreamRequests()).toBe(0);
    });

    it('rejects a bad enum literal as a validation error', async () => {
      harness.resetStats();
      const response = await harness.gql(`mutation { deleteDirectory(input: { uuid: "${UNKNOWN_UUID}", deleteMode: SOFT }) { deletedDirectoryUuid } }`);
      expect(response.errors?.[0]?.message).toMatch(/SOFT/);
      expect(harness.upstreamRequests()).toBe(0);
    });
  });
});
