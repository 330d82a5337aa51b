/**
 * A list query's filter fields say only what the record definition does not: the record field
 * defaults to the filter's name and the GraphQL type to what that field's kind is exposed as, so
 * a filter on a field the record does not have (or holds no scalar) is refused when the schema is
 * built, not answered with a condition the upstream ignores.
 */
import { isInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { HostRef } from '../../../src/schema/host/types.js';
import { hosts } from '../../../src/schema/host/loaders.js';
import { schema } from '../../../src/schema/index.js';
import { defineListQuery, equals, type ListQuery } from '../../../src/schema/kit/list-query.js';
import type { HostRecord } from '../../../src/upstream/records.js';

function hostListWith(fields: ListQuery<HostRecord>['filter']['fields']): ListQuery<HostRecord> {
  return {
    record: 'host',
    family: hosts,
    naming: { a: 'a host', plural: 'hosts' },
    list: { name: 'probeHosts', description: 'Hosts.' },
    one: { type: HostRef, noun: 'host', argDescription: 'The host\'s uuid.' },
    filter: { argDescription: 'Conditions.', fields },
    order: { fields: {} },
  };
}

describe('list query filters from the record definition', () => {
  it('a filter on a record field takes the type its kind is shown as', () => {
    const filter = schema.getType('HostFilter');
    if (!isInputObjectType(filter)) throw new Error('HostFilter is not an input type');
    const types = Object.fromEntries(Object.values(filter.getFields()).map((field) => [field.name, String(field.type)]));
    expect(types).toMatchObject({ zoneUuid: 'Uuid', clusterUuid: 'Uuid', state: 'ResourceState', hypervisorType: 'HypervisorType', uuids: '[Uuid!]' });
  });

  it('refuses a filter on a field the record does not have, or of a kind with no scalar', () => {
    expect(() => defineListQuery(hostListWith({ zoneId: equals('Only hosts of this zone.') }))).toThrow('host.zoneId: the filter zoneId needs');
    expect(() => defineListQuery(hostListWith({ cpuStatus: equals('Only hosts with this CPU status.') }))).toThrow('host.cpuStatus');
  });
});
