/** Primary storage capacity (spec: Endpoints, "Storage devices and capacity"; the queries are in `queries.ts`). */
import { defineOperation } from './define.js';

export const GetPrimaryStorageCapacity = defineOperation('GetPrimaryStorageCapacity', 'GET primary-storage/capacities', {
  since: '0.6',
  params: { zoneUuids: 'query', clusterUuids: 'query', primaryStorageUuids: 'query', all: 'query' },
  decode: (body, decoder) => decoder.primaryStorageCapacity(body, 'body'),
});
