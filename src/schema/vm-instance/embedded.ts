/**
 * The records embedded in a VM (its NICs and their used IPs, its CD-ROMs): no query of their own,
 * found by their `<vmUuid>.<uuid>` global ids through the request's VM loader.
 */
import { builder } from '../../builder.js';
import type { GatewayContext } from '../../context.js';
import type { VmCdRomRecord, VmInstanceRecord, VmNicRecord } from '../../upstream/records.js';
import { EMBEDDED_GLOBAL_ID, embeddedId, loadEmbedded } from '../kit/embedded-ids.js';
import { backedBy, follows, reads } from '../kit/record-fields.js';
import { VmInstanceRef } from './types.js';

export const NicDriverType = builder.enumType('NicDriverType', {
  description: 'Emulated device model of a VM NIC (`driverType`; UpdateVmNicDriver accepts exactly these). Since 3.9.0.',
  values: {
    VIRTIO: { value: 'virtio', description: 'Paravirtualized virtio-net (`virtio`).' },
    E1000: { value: 'e1000', description: 'Emulated Intel E1000 (`e1000`).' },
    RTL8139: { value: 'rtl8139', description: 'Emulated Realtek RTL8139 (`rtl8139`).' },
  } as const,
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
const loadUsedIps = loadEmbedded('UsedIp', loadVms, (vm: VmInstanceRecord) => vm.vmNics.flatMap((nic) => nic.usedIps));

export const VmNicRef = builder.loadableNode('VmNic', {
  description: 'A NIC of a VM (vmNics item / VmNicInventory). Items since 3.17.13; VmNicInventory since 3.9.0.',
  id: { resolve: (nic) => embeddedId(nic.vmInstanceUuid, nic.uuid) },
  extensions: backedBy('vmNic', EMBEDDED_GLOBAL_ID),
  load: loadVmNics,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 3.9.0.' }),
    vmInstanceUuid: t.expose('vmInstanceUuid', { type: 'Uuid', description: 'VM the NIC belongs to. Since 3.9.0.' }),
    vmInstance: t.field({
      ...follows<VmNicRecord>('vmInstanceUuid'),
      type: VmInstanceRef,
      description: 'VM the NIC belongs to. Null when it cannot be read (with an error). Since 3.9.0.',
    }),
    l3NetworkUuid: t.expose('l3NetworkUuid', { type: 'Uuid', description: 'L3 network the NIC is on. Since 3.9.0.' }),
    ip: t.exposeString('ip', { description: 'IP address. Since 3.9.0.' }),
    mac: t.exposeString('mac', { description: 'MAC address. Since 3.9.0.' }),
    hypervisorType: t.exposeString('hypervisorType', { description: 'Hypervisor type, typically `KVM`. Since 4.7.13.' }),
    netmask: t.exposeString('netmask', { description: 'Netmask. Since 3.9.0.' }),
    gateway: t.exposeString('gateway', { description: 'Gateway. Since 3.9.0.' }),
    metaData: t.exposeString('metaData', { description: 'Metadata text. Since 3.9.0.' }),
    driverType: t.expose('driverType', {
      type: NicDriverType,
      nullable: true,
      description: 'Emulated device model; null when the upstream reports a value outside `virtio`, `e1000`, `rtl8139`. Since 4.7.13.',
    }),
    internalName: t.exposeString('internalName', { description: 'Name of the device inside the hypervisor. Since 4.7.13.' }),
    type: t.exposeString('type', { description: 'NIC type, e.g. `VNIC`. Since 4.7.13.' }),
    state: t.exposeString('state', { description: 'NIC state; `enable` is seen, other values are open. Since 4.7.13.' }),
    ipVersion: t.exposeInt('ipVersion', { description: 'IP version of `ip`: 4 or 6. Since 3.9.0.' }),
    deviceId: t.exposeInt('deviceId', { description: 'Device order of the NIC in the VM. Since 3.9.0.' }),
    usedIpUuid: t.expose('usedIpUuid', { type: 'Uuid', description: 'The used-IP record of `ip`, when the upstream returns it. Since 3.9.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time. Since 3.9.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time. Since 3.9.0.' }),
    usedIps: t.field({
      type: [UsedIpRef],
      nullable: false,
      description: 'IP addresses allocated to the NIC. Since 4.10.0.',
      extensions: reads<VmNicRecord>('usedIps'),
      resolve: (nic) => nic.usedIps,
    }),
  }),
});

export const UsedIpRef = builder.loadableNode('UsedIp', {
  description: 'An IP address allocated to a VM NIC (usedIps item). Since 4.10.0.',
  id: { resolve: (usedIp) => embeddedId(usedIp.vmInstanceUuid, usedIp.uuid) },
  extensions: backedBy('usedIp', EMBEDDED_GLOBAL_ID),
  load: loadUsedIps,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 4.10.0.' }),
    ipRangeUuid: t.expose('ipRangeUuid', { type: 'Uuid', description: 'IP range the address comes from. Since 4.10.0.' }),
    l3NetworkUuid: t.expose('l3NetworkUuid', { type: 'Uuid', description: 'L3 network of the address. Since 4.10.0.' }),
    ip: t.exposeString('ip', { description: 'IP address. Since 4.10.0.' }),
    netmask: t.exposeString('netmask', { description: 'Netmask. Since 4.10.0.' }),
    gateway: t.exposeString('gateway', { description: 'Gateway. Since 4.10.0.' }),
    usedFor: t.exposeString('usedFor', { description: 'What the address is used for. Since 4.10.0.' }),
    vmNicUuid: t.expose('vmNicUuid', { type: 'Uuid', description: 'NIC the address is allocated to. Since 4.10.0.' }),
    ipVersion: t.exposeInt('ipVersion', { description: 'IP version: 4 or 6. Since 4.10.0.' }),
    ipInLong: t.expose('ipInLong', { type: 'Long', description: 'The IPv4 address as a number; null for IPv6. Since 4.10.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time. Since 4.10.0.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time. Since 4.10.0.' }),
  }),
});

export const VmCdRomRef = builder.loadableNode('VmCdRom', {
  description: 'A CD-ROM drive of a VM (vmCdRoms item). Since 3.17.13.',
  id: { resolve: (cdRom) => embeddedId(cdRom.vmInstanceUuid, cdRom.uuid) },
  extensions: backedBy('vmCdRom', EMBEDDED_GLOBAL_ID),
  load: loadVmCdRoms,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 3.17.13.' }),
    vmInstanceUuid: t.expose('vmInstanceUuid', { type: 'Uuid', description: 'VM the drive belongs to. Since 3.17.13.' }),
    vmInstance: t.field({
      ...follows<VmCdRomRecord>('vmInstanceUuid'),
      type: VmInstanceRef,
      description: 'VM the drive belongs to. Null when it cannot be read (with an error). Since 3.17.13.',
    }),
    isoUuid: t.expose('isoUuid', { type: 'Uuid', description: 'ISO image in the drive; null when empty. Since 3.17.13.' }),
    isoInstallPath: t.exposeString('isoInstallPath', { description: 'Install path of the ISO image. Since 3.17.13.' }),
    name: t.exposeString('name', { description: 'Name. Since 3.17.13.' }),
    description: t.exposeString('description', { description: 'Description. Since 3.17.13.' }),
    deviceId: t.exposeInt('deviceId', { description: 'Device order of the drive in the VM. Since 3.17.13.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time. Since 3.17.13.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time. Since 3.17.13.' }),
  }),
});

