/**
 * The `VmInstance` type (VmInstanceInventory, read through the cursor family,
 * resourceType `vm`) and its relations: host and last host, root volume, the embedded NICs,
 * volumes and CD-ROMs, snapshot groups and attachable data volumes.
 */
import type { VmInstanceRecord } from '../../upstream/records.js';
import { readableItems } from '../../upstream/wire.js';
import { GetVmAttachableDataVolume, QueryVolumeSnapshotGroup } from '../../upstream/operations/index.js';
import { childConnection } from '../kit/list-query.js';
import { entityByUuid } from '../kit/federation.js';
import { recordEnums } from '../kit/enums.js';
import { alsoReads, backedBy, embeddedList, exposeRecordEnums, exposeRecordFields, reads } from '../kit/record-fields.js';
import { callsPerParent } from '../kit/upstream-calls.js';
import { CpuArchitecture, HypervisorType } from '../common-enums.js';
import { followsHost } from '../host/index.js';
import { VmInstanceRef, VolumeRef } from '../node-refs.js';
import { snapshotGroupListArgs } from '../volume-snapshot-group/index.js';
import { VmCdRomRef, VmNicRef } from './embedded.js';
import { loadAttachableDataVolumes, snapshotGroupsOfVm } from './loaders.js';

export const { VmPlatform, VmState, VmAllocatorStrategy, VmInstanceType } = recordEnums('vmInstance', {
  VmPlatform: {
    field: 'platform',
    description: 'The guest platform of a VM, as the spec lists them. Since 0.6.',
    values: { Windows: 'Windows (`Windows`).', Linux: 'Linux (`Linux`).', Other: 'Any other guest (`Other`).' },
  },
  VmState: {
    field: 'state',
    description: 'The state of a VM. Since 0.6.',
    values: {
      Running: 'Running on its host (`Running`).',
      Stopped: 'Stopped: placed on no host (`Stopped`).',
      Destroyed: 'Destroyed and recoverable, until expunged (`Destroyed`; RecoverVmInstance brings it back `Stopped`).',
    },
  },
  VmAllocatorStrategy: {
    field: 'allocatorStrategy',
    description: 'How the upstream chooses a VM\'s host. Since 0.6.',
    values: { LastHostPreferredAllocatorStrategy: 'The host it last ran on, when it can (`LastHostPreferredAllocatorStrategy`).' },
  },
  VmInstanceType: {
    field: 'type',
    description: 'Kind of VM: the record\'s `type`, and what a create makes (the create operations accept exactly these). Since 0.6.',
    values: { UserVm: 'A user VM (`UserVm`).', ApplianceVm: 'A platform special-purpose VM (`ApplianceVm`).' },
  },
});

VmInstanceRef.implement({
  description: 'A virtual machine (VmInstanceInventory), with its NICs, volumes and CD-ROMs embedded. Since 0.6.',
  extensions: backedBy('vmInstance'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'vmInstance',
      'uuid', 'name', 'description', 'zoneUuid', 'clusterUuid', 'imageUuid', 'hostUuid', 'lastHostUuid', 'instanceOfferingUuid',
      'rootVolumeUuid', 'defaultL3NetworkUuid',
    ),
    ...exposeRecordEnums(t, 'vmInstance', VmPlatform, 'platform'),
    ...exposeRecordEnums(t, 'vmInstance', CpuArchitecture, 'architecture'),
    ...exposeRecordEnums(t, 'vmInstance', VmInstanceType, 'type'),
    ...exposeRecordEnums(t, 'vmInstance', HypervisorType, 'hypervisorType'),
    ...exposeRecordFields(t, 'vmInstance', 'memorySize', 'cpuNum', 'cpuSpeed'),
    ...exposeRecordEnums(t, 'vmInstance', VmAllocatorStrategy, 'allocatorStrategy'),
    ...exposeRecordEnums(t, 'vmInstance', VmState, 'state'),
    ...exposeRecordFields(t, 'vmInstance', 'guestOsType', 'createDate', 'lastOpDate'),
    host: followsHost(t, 'hostUuid', 'Host the VM runs on now (`hostUuid`); null when it is not placed. Also null when it cannot be read (with an error). Since 0.6.'),
    lastHost: followsHost(t, 'lastHostUuid', 'Host the VM last ran on (`lastHostUuid`). Null when it cannot be read (with an error). Since 0.6.'),
    rootVolume: t.field({
      type: VolumeRef,
      nullable: true,
      description: 'Root (boot) volume (`rootVolumeUuid`), taken from the VM\'s own `allVolumes` when it is there. Null when it cannot be read (with an error); as old as the volume record it returns. Since 3.17.13.',
      extensions: reads<VmInstanceRecord>('allVolumes', 'rootVolumeUuid'),
      resolve: (vm) => readableItems(vm.allVolumes).find((volume) => volume.uuid === vm.rootVolumeUuid) ?? vm.rootVolumeUuid,
    }),
    nics: embeddedList(t, 'vmNics', VmNicRef, 'NICs of the VM (`vmNics`: its items are described since 3.17.13). Since 3.17.13.'),
    volumes: embeddedList(t, 'allVolumes', VolumeRef, 'Volumes attached to the VM, root volume included (`allVolumes`: its items are described since 3.17.13). Since 3.17.13.'),
    cdRoms: embeddedList(t, 'vmCdRoms', VmCdRomRef, 'CD-ROM drives of the VM (`vmCdRoms`: its items are described since 3.17.13). Since 3.17.13.'),
    snapshotGroups: t.field({
      description:
        'Volume snapshot groups taken of this VM that meet `filter`, in `orderBy`\'s order (QueryVolumeSnapshotGroup by `vmInstanceUuid` and the conditions given; one request for all VMs of a page asking the same). Null when they cannot be read (with an error). Since 3.6.0.',
      // The groups are grouped by their VM's uuid.
      extensions: { ...reads<VmInstanceRecord>('uuid'), ...alsoReads('volumeSnapshotGroup', 'vmInstanceUuid'), since: QueryVolumeSnapshotGroup.since },
      ...childConnection(snapshotGroupListArgs, snapshotGroupsOfVm, 'VmInstance.snapshotGroups'),
    }),
    attachableDataVolumes: t.loadableList({
      type: VolumeRef,
      nullable: { list: true, items: true },
      description:
        'Data volumes that could be attached to this VM, each the whole volume `node(id:)` answers: GetVmAttachableDataVolume (one upstream request per VM, the spec has no batch form) names them, and the volumes of every VM of a page are read by uuid in one batch with the request\'s other volumes, so it needs both credentials. A volume gone in between is left out; one the upstream sent unreadable is null with an error at its index. Null when they cannot be read (with an error). Since 0.6.',
      extensions: { ...reads<VmInstanceRecord>('uuid'), ...callsPerParent(), since: GetVmAttachableDataVolume.since },
      load: loadAttachableDataVolumes,
      resolve: (vm) => vm.uuid,
    }),
  }),
});

// A Federation entity: other subgraphs reference it by uuid (or id), `_entities` loads it like a page does.
entityByUuid(VmInstanceRef, 'VmInstance');
