/**
 * Refused input as a form sees it: a variable or a literal argument the gateway refuses carries
 * the path to the value in `extensions.field` (the shape of `UserError.field`), a reason, and the
 * code it always had; and a uuid is taken in RFC 9562's hyphenated form as well as the upstream's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type GraphQLResponse, type Harness } from '../support/harness.js';

const UNKNOWN_UUID = 'f'.repeat(32);

/** `8-4-4-4-12` with hyphens, in upper case: the RFC's own form of a 32-digit uuid. */
function hyphenated(uuid: string): string {
  return `${uuid.slice(0, 8)}-${uuid.slice(8, 12)}-${uuid.slice(12, 16)}-${uuid.slice(16, 20)}-${uuid.slice(20)}`.toUpperCase();
}

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness.close();
});

/** The one error of a refused request, after checking nothing ran and the upstream was not asked. */
async function refusal(query: string, variables: Record<string, unknown> = {}): Promise<{ message: string; extensions: Record<string, unknown> }> {
  harness.resetStats();
  const response: GraphQLResponse = await harness.gql(query, variables);
  expect(response.data ?? null).toBeNull();
  expect(response.errors).toHaveLength(1);
  expect(harness.upstreamRequests()).toBe(0);
  const [error] = response.errors!;
  return { message: error!.message, extensions: error!.extensions ?? {} };
}

describe('a variable that does not coerce', () => {
  it('names the input field of a malformed Uuid, starting with the argument', async () => {
    const error = await refusal(
      'mutation($input: CreateVmInstanceFromVolumeSnapshotGroupInput!) { createVmInstanceFromVolumeSnapshotGroup(input: $input) { job { id } } }',
      { input: { volumeSnapshotGroupUuid: 'not-a-uuid', name: 'vm' } },
    );
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['input', 'volumeSnapshotGroupUuid'], reason: 'INVALID_VALUE' });
    expect(error.message).toContain('at "input.volumeSnapshotGroupUuid"');
  });

  it('names the argument, not the variable, when the two are spelled differently', async () => {
    const error = await refusal('mutation($form: DeleteDirectoryInput!) { deleteDirectory(input: $form) { job { id } } }', { form: { uuid: '123' } });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['input', 'uuid'] });
  });

  it('names the input field a variable stands in for inside a literal object', async () => {
    const error = await refusal('mutation($id: Uuid!) { deleteDirectory(input: { uuid: $id }) { job { id } } }', { id: 'xyz' });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['input', 'uuid'], reason: 'INVALID_VALUE' });
  });

  it('names a required input field left out, as REQUIRED', async () => {
    const error = await refusal('mutation($input: CreateCbtTaskInput!) { createCbtTask(input: $input) { job { id } } }', {
      input: { name: 'x', resourceUuids: [UNKNOWN_UUID] },
    });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['input', 'taskType'], reason: 'REQUIRED' });
  });

  it('names an input field the type does not define, as UNKNOWN_FIELD', async () => {
    const error = await refusal('mutation($input: DeleteDirectoryInput!) { deleteDirectory(input: $input) { job { id } } }', {
      input: { uuid: UNKNOWN_UUID, colour: 'blue' },
    });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['input', 'colour'], reason: 'UNKNOWN_FIELD' });
  });

  it('names a list item by its index, as a string like UserError.field', async () => {
    const error = await refusal('mutation($input: ExportNbdVolumesInput!) { exportNbdVolumes(input: $input) { job { id } } }', {
      input: { vmInstanceUuid: UNKNOWN_UUID, volumeUuids: [UNKNOWN_UUID, '123'] },
    });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['input', 'volumeUuids', '1'], reason: 'INVALID_VALUE' });
  });

  it('names the argument of a required variable that was not sent or was null', async () => {
    const query = 'query($vm: Uuid!) { vmInstance(uuid: $vm) { uuid } }';
    expect((await refusal(query)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['uuid'], reason: 'REQUIRED' });
    expect((await refusal(query, { vm: null })).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['uuid'], reason: 'REQUIRED' });
  });

  it('names every refused value of a request, each at its own field', async () => {
    harness.resetStats();
    const response = await harness.gql('mutation($input: CreateCbtTaskInput!) { createCbtTask(input: $input) { job { id } } }', {
      input: { resourceUuids: ['bad'], resourceUuid: 'worse' },
    });
    const fields = response.errors?.map((error) => error.extensions?.field);
    expect(fields).toEqual(expect.arrayContaining([['input', 'name'], ['input', 'taskType'], ['input', 'resourceUuids', '0'], ['input', 'resourceUuid']]));
    expect(response.errors?.every((error) => error.extensions?.code === 'BAD_USER_INPUT')).toBe(true);
    expect(harness.upstreamRequests()).toBe(0);
  });
});

describe('a literal argument that fails validation', () => {
  it('names the input field of a malformed literal Uuid, keeping its code, each time the document comes', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await refusal('mutation { deleteDirectory(input: { uuid: "nope" }) { job { id } } }');
      expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['input', 'uuid'], reason: 'INVALID_VALUE' });
    }
  });

  it('names a required input field a literal object leaves out, keeping GRAPHQL_VALIDATION_FAILED', async () => {
    const error = await refusal(`mutation { createCbtTask(input: { name: "x", resourceUuids: ["${UNKNOWN_UUID}"] }) { job { id } } }`);
    expect(error.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', field: ['input', 'taskType'], reason: 'REQUIRED' });
  });

  it('names an unknown input field and a bad list item of a literal', async () => {
    const unknown = await refusal(`mutation { deleteDirectory(input: { uuid: "${UNKNOWN_UUID}", colour: "blue" }) { job { id } } }`);
    expect(unknown.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', field: ['input', 'colour'], reason: 'UNKNOWN_FIELD' });
    const item = await refusal(`{ vmInstances(first: 1, filter: { uuids: ["${UNKNOWN_UUID}", "x"] }) { totalCount } }`);
    expect(item.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['filter', 'uuids', '1'], reason: 'INVALID_VALUE' });
  });
});

describe('a hyphenated uuid (RFC 9562)', () => {
  it('reads the same record as its 32 digits, as a variable and as a literal, answered in the upstream spelling', async () => {
    const vm = harness.simulator.store.vms.list(harness.simulator.store.tenants[0]!.id).next().value!;
    const byVariable = await harness.gql<{ vmInstance: { uuid: string; name: string } }>('query($uuid: Uuid!) { vmInstance(uuid: $uuid) { uuid name } }', {
      uuid: hyphenated(vm.uuid),
    });
    expect(byVariable.errors).toBeUndefined();
    expect(byVariable.data?.vmInstance).toEqual({ uuid: vm.uuid, name: vm.name });
    const byLiteral = await harness.gql<{ vmInstance: { uuid: string } }>(`{ vmInstance(uuid: "${hyphenated(vm.uuid).toLowerCase()}") { uuid } }`);
    expect(byLiteral.data?.vmInstance).toEqual({ uuid: vm.uuid });
  });

  it('reaches the upstream as 32 lowercase digits in a mutation', async () => {
    const store = harness.simulator.store;
    const tenantId = store.tenants[0]!.id;
    const group = [...store.snapshotGroups.list(tenantId)].find((candidate) => candidate.volumeSnapshotRefs.every((ref) => !ref.snapshotDeleted))!;
    const response = await harness.gql<{ updateVolumeSnapshotGroup: { volumeSnapshotGroup: { uuid: string; name: string } | null; userErrors: unknown[] } }>(
      'mutation($input: UpdateVolumeSnapshotGroupInput!) { updateVolumeSnapshotGroup(input: $input) { volumeSnapshotGroup { uuid name } userErrors { field code } } }',
      { input: { uuid: hyphenated(group.uuid), name: 'renamed-through-rfc-form' } },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data?.updateVolumeSnapshotGroup).toEqual({ volumeSnapshotGroup: { uuid: group.uuid, name: 'renamed-through-rfc-form' }, userErrors: [] });
    expect(store.snapshotGroups.get(tenantId, group.uuid)?.name).toBe('renamed-through-rfc-form');
  });

  it('still refuses hyphens in the wrong places, at the field', async () => {
    const error = await refusal('query($uuid: Uuid!) { vmInstance(uuid: $uuid) { uuid } }', { uuid: `${UNKNOWN_UUID.slice(0, 4)}-${UNKNOWN_UUID.slice(4)}` });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['uuid'], reason: 'INVALID_VALUE' });
  });
});
