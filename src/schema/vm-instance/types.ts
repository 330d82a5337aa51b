/**
 * The `VmInstance` type (VmInstanceInventory, read through the generic cursor family,
 * resourceType `vm`) and its relations: host and last host, root volume, the embedded NICs,
 * volumes and CD-ROMs, snapshot groups and attachable data volumes.
 */
import { builder } from '../../builder.js';
import type { VmInstanceRecord } from '../../upstream/records.js';
import { loadListConnection, pageArgs } from '../kit/connections.js';
import { nodeByUuid } from '../kit/families.js';
import { alsoReads, backedBy, reads } from '../kit/record-fields.js';
import { callsPerParent } from '../kit/upstream-calls.js';
import { HostRef, prefetchHostRelations } from '../host/index.js';
import { VolumeRef } from '../volume.js';
import { VolumeSnapshotGroupConnection } from '../volume-snapshot-group/index.js';
import { VmCdRomRef, VmNicRef } from './embedded.js';
import { loadAttachableDataVolumes, snapshotGroupsOfVm, vmInstances } from './loaders.js';

export const VmInstanceRef = builder.loadableNodeRef('VmInstance', {
  ...nodeByUuid(vmInstances, 'VmInstance'),
  cacheResolved: (vm) => vm.uuid,
});

VmInstanceRef.implement({
  description: 'A virtual machine (VmInstanceInventory), with its NICs, volumes and CD-ROMs embedded. Since 0.6.',
  extensions: backedBy('vmInstance'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 0.6.' }),
    name: t.exposeString('name', { description: 'Name. Since 0.6.' }),
    description: t.exposeString('description', { description: 'Description. Since 0.6.' }),
    zoneUuid: t.expose('zoneUuid', { type: 'Uuid', description: 'Zone (data center) of the VM. Since 0.6.' }),
    clusterUuid: t.expose('clusterUuid', { type: 'Uuid', description: 'Cluster of the VM. Since 0.6.' }),
    imageUuid: t.expose('imageUuid', { type: 'Uuid', description: 'Image the VM was created from. Since 0.6.' }),
    hostUuid: t.expose('hostUuid', { type: 'Uuid', description: 'Host the VM runs on now; null when it is not placed. Since 0.6.' }),
    lastHostUuid: t.expose('lastHostUuid', { type: 'Uuid', description: 'Host the VM last ran on. Since 0.6.' }),
    instanceOfferingUuid: t.expose('instanceOfferingUuid', { type: 'Uuid', description: 'Instance offering (CPU/memory template) of the VM. Since 0.6.' }),
    rootVolumeUuid: t.expose('rootVolumeUuid', { type: 'Uuid', description: 'Root (boot) volume. Since 0.6.' }),
    defaultL3NetworkUuid: t.expose('defaultL3NetworkUuid', { type: 'Uuid', description: 'Default L3 network. Since 0.6.' }),
    platform: t.exposeString('platform', { description: 'Guest platform: `Windows`, `Linux` or `Other`. Since 0.6.' }),
    architecture: t.exposeString('architecture', { description: 'CPU architecture: `x86_64`, `aarch64` or `Other`. Since 0.6.' }),
    type: t.exposeString('type', { description: 'A user VM (`UserVm`) or a platform special-purpose VM (`ApplianceVm`). Since 0.6.' }),
    hypervisorType: t.exposeString('hypervisorType', { description: 'Hypervisor type, typically `KVM`. Since 0.6.' }),
    memorySize: t.expose('memorySize', { type: 'Long', description: 'Memory size in bytes. Since 0.6.' }),
    cpuNum: t.exposeInt('cpuNum', { description: 'CPU count. Since 0.6.' }),
    cpuSpeed: t.expose('cpuSpeed', { type: 'Long', description: 'CPU speed. Since 0.6.' }),
    allocatorStrategy: t.exposeString('allocatorStrategy', { description: 'Host allocation strategy. Since 0.6.' }),
    state: t.exposeString('state', {
      description: 'VM state; `Running`, `Stopped` and `Destroyed` are seen, other values are open. Since 0.6.',
    }),
    guestOsType: t.exposeString('guestOsType', { description: 'Guest OS type, e.g. `CentOS 7`. Since 3.11.2.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the VM was created. Since 0.6.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the VM record last changed. Since 0.6.' }),
    host: t.field({
      type: HostRef,
      nullable: true,
      description: 'Host the VM runs on now (`hostUuid`); null when it is not placed. Also null when it cannot be read (with an error). Since 0.6.',
      extensions: reads<VmInstanceRecord>('hostUuid'),
      resolve: (vm, _args, context, info) => {
        prefetchHostRelations(context, info, vm.hostUuid);
        return vm.hostUuid;
      },
    }),
    lastHost: t.field({
      type: HostRef,
      nullable: true,
      description: 'Host the VM last ran on (`lastHostUuid`). Null when it cannot be read (with an error). Since 0.6.',
      extensions: reads<VmInstanceRecord>('lastHostUuid'),
      resolve: (vm, _args, context, info) => {
        prefetchHostRelations(context, info, vm.lastHostUuid);
        return vm.lastHostUuid;
      },
    }),
    rootVolume: t.field({
      type: VolumeRef,
      nullable: true,
      description: 'Root (boot) volume (`rootVolumeUuid`), taken from the VM\'s own `allVolumes` when it is there. Null when it cannot be read (with an error). Since 0.6.',
      extensions: reads<VmInstanceRecord>('allVolumes', 'rootVolumeUuid'),
      resolve: (vm) => vm.allVolumes.find((volume) => volume.uuid === vm.rootVolumeUuid) ?? vm.rootVolumeUuid,
    }),
    nics: t.field({
      type: [VmNicRef],
      nullable: false,
      description: 'NICs of the VM (`vmNics`). Items since 3.17.13.',
      extensions: reads<VmInstanceRecord>('vmNics'),
      resolve: (vm) => vm.vmNics,
    }),
    volumes: t.field({
      type: [VolumeRef],
      nullable: false,
      description: 'Volumes attached to the VM, root volume included (`allVolumes`). Items since 3.17.13.',
      extensions: reads<VmInstanceRecord>('allVolumes'),
      resolve: (vm) => vm.allVolumes,
    }),
    cdRoms: t.field({
      type: [VmCdRomRef],
      nullable: false,
      description: 'CD-ROM drives of the VM (`vmCdRoms`). Items since 3.17.13.',
      extensions: reads<VmInstanceRecord>('vmCdRoms'),
      resolve: (vm) => vm.vmCdRoms,
    }),
    snapshotGroups: t.field({
      type: VolumeSnapshotGroupConnection,
      nullable: true,
      description:
        'Volume snapshot groups taken of this VM (QueryVolumeSnapshotGroup by `vmInstanceUuid`; one request for all VMs of a page). Null when they cannot be read (with an error). Since 3.6.0.',
      args: { ...pageArgs },
      // The groups are grouped by their VM's uuid.
      extensions: { ...reads<VmInstanceRecord>('uuid'), ...alsoReads('volumeSnapshotGroup', 'vmInstanceUuid') },
      resolve: (vm, args, context) => loadListConnection(context, snapshotGroupsOfVm(context), vm.uuid, args, 'VmInstance.snapshotGroups'),
    }),
    attachableDataVolumes: t.loadableList({
      type: VolumeRef,
      nullable: { list: true, items: false },
      description:
        'Data volumes that could be attached to this VM (GetVmAttachableDataVolume: one upstream request per VM, the spec has no batch form). Only the fields the candidate record carries are set. Null when they cannot be read (with an error). Since 0.6.',
      extensions: { ...reads<VmInstanceRecord>('uuid'), ...callsPerParent() },
      load: loadAttachableDataVolumes,
      resolve: (vm) => vm.uuid,
    }),
  }),
});

export const VmInstanceConnection = builder.connectionObject({ type: VmInstanceRef, name: 'VmInstanceConnection' });
