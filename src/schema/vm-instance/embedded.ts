/**
 * The records embedded in a VM (its NICs and their used IPs, its CD-ROMs): no query of their own,
 * found by their `<vmUuid>.<uuid>` global ids through the request's VM loader.
 */
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import type { VmInstanceRecord } from '../../upstream/records.js';
import { readableItems } from '../../upstream/wire.js';
import { embeddedNode, loadEmbedded } from '../kit/embedded-ids.js';
import { recordEnums } from '../kit/enums.js';
import { backedBy, embeddedList, exposeRecordEnums, exposeRecordFields, follows } from '../kit/record-fields.js';
import { HypervisorType } from '../common-enums.js';
import { VmInstanceRef } from '../node-refs.js';

export const { NicDriverType, VmNicType, VmNicState } = recordEnums('vmNic', {
  NicDriverType: {
    field: 'driverType',
    description: 'Emulated device model of a VM NIC (`driverType`; UpdateVmNicDriver accepts exactly these). Since 3.9.0.',
    values: {
      virtio: 'Paravirtualized virtio-net (`virtio`).',
      e1000: 'Emulated Intel E1000 (`e1000`).',
      rtl8139: 'Emulated Realtek RTL8139 (`rtl8139`).',
    },
  },
  VmNicType: {
    field: 'type',
    description: 'The kind of a VM NIC; the upstream\'s spelling varies in case (`VNIC`, `VNic`). Since 3.17.13.',
    values: { VNIC: 'A virtual NIC (`VNIC`, in any case).' },
  },
  VmNicState: {
    field: 'state',
    description: 'The state of a VM NIC. Since 3.17.13.',
    values: { enable: 'The NIC is enabled (`enable`).' },
  },
});

/**
 * The VMs records embedded in them name, through the request's VM loader, so NICs, used IPs and
 * CD-ROMs looked up together share one batch (and its cache).
 */
function loadVms(vmUuids: string[], context: GatewayContext) {
  return VmInstanceRef.getDataloader(context).loadMany(vmUuids);
}

// A VM's NICs, CD-ROMs and used IPs carry its uuid (their global ids need it) from decoding, even
// when the upstream leaves it out of the embedded items: the resolvers hand them out as they are.
const loadVmNics = loadEmbedded('VmNic', loadVms, (vm: VmInstanceRecord) => vm.vmNics);
const loadVmCdRoms = loadEmbedded('VmCdRom', loadVms, (vm: VmInstanceRecord) => vm.vmCdRoms);
const loadUsedIps = loadEmbedded('UsedIp', loadVms, (vm: VmInstanceRecord) => readableItems(vm.vmNics).flatMap((nic) => nic.usedIps));

export const VmNicRef = builder.loadableNode('VmNic', {
  description: 'A NIC of a VM (VmNicInventory; a `vmNics` item of the VM record since 3.17.13). Since 3.9.0.',
  ...embeddedNode(loadVmNics, 'vmInstanceUuid', backedBy('vmNic')),
  fields: (t) => ({
    ...exposeRecordFields(t, 'vmNic', 'uuid', 'vmInstanceUuid'),
    vmInstance: follows(t, 'vmInstanceUuid', VmInstanceRef, 'VM the NIC belongs to. Null when it cannot be read (with an error). Since 3.9.0.'),
    ...exposeRecordFields(t, 'vmNic', 'l3NetworkUuid', 'ip', 'mac'),
    ...exposeRecordEnums(t, 'vmNic', HypervisorType, 'hypervisorType'),
    ...exposeRecordFields(t, 'vmNic', 'netmask', 'gateway', 'metaData'),
    ...exposeRecordEnums(t, 'vmNic', NicDriverType, 'driverType'),
    ...exposeRecordFields(t, 'vmNic', 'internalName'),
    ...exposeRecordEnums(t, 'vmNic', VmNicType, 'type'),
    ...exposeRecordEnums(t, 'vmNic', VmNicState, 'state'),
    ...exposeRecordFields(t, 'vmNic', 'ipVersion', 'deviceId', 'usedIpUuid', 'createDate', 'lastOpDate'),
    usedIps: embeddedList(t, 'usedIps', UsedIpRef, 'IP addresses allocated to the NIC. Since 4.10.0.'),
  }),
});

export const UsedIpRef = builder.loadableNode('UsedIp', {
  description: 'An IP address allocated to a VM NIC (usedIps item). Since 4.10.0.',
  ...embeddedNode(loadUsedIps, 'vmInstanceUuid', backedBy('usedIp')),
  fields: (t) => ({
    ...exposeRecordFields(t, 'usedIp',
      'uuid', 'ipRangeUuid', 'l3NetworkUuid', 'ip', 'netmask', 'gateway', 'usedFor', 'vmNicUuid', 'ipVersion', 'ipInLong', 'createDate',
      'lastOpDate',
    ),
  }),
});

export const VmCdRomRef = builder.loadableNode('VmCdRom', {
  description: 'A CD-ROM drive of a VM (vmCdRoms item). Since 3.17.13.',
  ...embeddedNode(loadVmCdRoms, 'vmInstanceUuid', backedBy('vmCdRom')),
  fields: (t) => ({
    ...exposeRecordFields(t, 'vmCdRom', 'uuid', 'vmInstanceUuid'),
    vmInstance: follows(t, 'vmInstanceUuid', VmInstanceRef, 'VM the drive belongs to. Null when it cannot be read (with an error). Since 3.17.13.'),
    ...exposeRecordFields(t, 'vmCdRom', 'isoUuid', 'isoInstallPath', 'name', 'description', 'deviceId', 'createDate', 'lastOpDate'),
  }),
});

