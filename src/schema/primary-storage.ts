/**
 * Primary storage capacity (GetPrimaryStorageCapacity): totals over the primary storages a
 * caller selects by zone, cluster or uuid.
 */
import { builder } from '../builder.js';
import { GetPrimaryStorageCapacity } from '../upstream/operations/index.js';
import type { PrimaryStorageCapacityRecord } from '../upstream/records.js';
import { exposeRecordFields } from './kit/record-fields.js';

const PrimaryStorageCapacityRef = builder.objectRef<PrimaryStorageCapacityRecord>('PrimaryStorageCapacity');

PrimaryStorageCapacityRef.implement({
  extensions: { since: GetPrimaryStorageCapacity.since },
  description: 'Capacity summed over the selected primary storages (GetPrimaryStorageCapacity), in bytes. Since 0.6.',
  fields: (t) => ({
    ...exposeRecordFields(t, 'primaryStorageCapacity', 'totalCapacity', 'availableCapacity', 'totalPhysicalCapacity', 'availablePhysicalCapacity'),
  }),
});

builder.queryField('primaryStorageCapacity', (t) =>
  t.field({
    type: PrimaryStorageCapacityRef,
    nullable: true,
    description:
      'Capacity summed over primary storages (GetPrimaryStorageCapacity): those named in `primaryStorageUuids`, else those in the given zones and clusters, else every one when `all` is true. Null when it cannot be read (with an error): no `Authorization` sent (`UNAUTHENTICATED`), the upstream failing, or a call that selects nothing (the upstream rejects it). Since 0.6.',
    extensions: { since: GetPrimaryStorageCapacity.since },
    args: {
      zoneUuids: t.arg({ type: ['Uuid'], description: 'Primary storages of these zones. Since 0.6.' }),
      clusterUuids: t.arg({ type: ['Uuid'], description: 'Primary storages attached to these clusters. Since 0.6.' }),
      primaryStorageUuids: t.arg({ type: ['Uuid'], description: 'These primary storages. Since 0.6.' }),
      all: t.arg.boolean({ description: 'When `primaryStorageUuids` is empty: true sums every primary storage. Since 0.6.' }),
    },
    resolve: (_root, args, context) =>
      context.session.read(GetPrimaryStorageCapacity, {
        ...(args.zoneUuids ? { zoneUuids: args.zoneUuids } : {}),
        ...(args.clusterUuids ? { clusterUuids: args.clusterUuids } : {}),
        ...(args.primaryStorageUuids ? { primaryStorageUuids: args.primaryStorageUuids } : {}),
        ...(args.all === null || args.all === undefined ? {} : { all: args.all }),
      }),
  }),
);
