/**
 * The `Host` type: HostInventory read through the generic cursor family (resourceType `host`),
 * with the hardware monitor statuses, NQN and hostname, and the resource API's per-host GETs as
 * fields (network facts, block devices, sensors).
 */
import { builder } from '../../builder.js';
import { GetHostBlockDevices, GetHostSensors } from '../../upstream/operations/index.js';
import type { HostRecord } from '../../upstream/records.js';
import { nodeByUuid } from '../kit/families.js';
import { backedBy, reads } from '../kit/record-fields.js';
import { callsPerParent } from '../kit/upstream-calls.js';
import { hosts, loadNetworkFacts } from './loaders.js';
import { HostNetworkFactsRef } from './network-facts.js';

export const HwMonitorStatus = builder.enumType('HwMonitorStatus', {
  description: 'State reported by a host hardware monitor. Since 4.10.0.',
  values: {
    NORMAL: { value: 'Normal', description: 'The component works normally.' },
    ERROR: { value: 'Error', description: 'The component reports a fault.' },
    UNKNOWN: { value: 'Unknown', description: 'The monitor has no reading.' },
  } as const,
});

export const HostRef = builder.loadableNode('Host', {
  description: 'A physical host running the hypervisor (HostInventory). Since 0.6.',
  ...nodeByUuid(hosts, 'Host'),
  extensions: backedBy('host'),
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier. Since 0.6.' }),
    name: t.exposeString('name', { description: 'Name. Since 0.6.' }),
    description: t.exposeString('description', { description: 'Description. Since 0.6.' }),
    zoneUuid: t.expose('zoneUuid', { type: 'Uuid', description: 'Data center (zone) the host belongs to. Since 0.6.' }),
    clusterUuid: t.expose('clusterUuid', { type: 'Uuid', description: 'Cluster the host belongs to. Since 0.6.' }),
    managementIp: t.exposeString('managementIp', { description: 'Management IP address. Since 0.6.' }),
    hypervisorType: t.exposeString('hypervisorType', { description: 'Hypervisor type, typically `KVM`. Since 0.6.' }),
    state: t.exposeString('state', { description: 'Resource state; `Enabled` is seen, other values are open. Since 0.6.' }),
    status: t.exposeString('status', { description: 'Connection status; `Connected` is seen, other values are open. Since 0.6.' }),
    totalCpuCapacity: t.expose('totalCpuCapacity', { type: 'Long', description: 'Total CPU capacity. Since 0.6.' }),
    availableCpuCapacity: t.expose('availableCpuCapacity', { type: 'Long', description: 'CPU capacity still available. Since 0.6.' }),
    totalMemoryCapacity: t.expose('totalMemoryCapacity', { type: 'Long', description: 'Total memory in bytes. Since 0.6.' }),
    availableMemoryCapacity: t.expose('availableMemoryCapacity', { type: 'Long', description: 'Memory still available, in bytes. Since 0.6.' }),
    cpuSockets: t.exposeInt('cpuSockets', { description: 'Physical CPU socket count. Since 0.6.' }),
    cpuNum: t.exposeInt('cpuNum', { description: 'Logical CPU count. Since 0.6.' }),
    ipmiAddress: t.exposeString('ipmiAddress', { description: 'IPMI address. Since 0.6.' }),
    ipmiUsername: t.exposeString('ipmiUsername', { description: 'IPMI user name. Since 0.6.' }),
    ipmiPowerStatus: t.exposeString('ipmiPowerStatus', { description: 'Power status reported over IPMI. Since 0.6.' }),
    ipmiPort: t.exposeInt('ipmiPort', { description: 'IPMI port. Since 0.6.' }),
    architecture: t.exposeString('architecture', { description: 'CPU architecture, e.g. `x86_64`. Since 0.6.' }),
    nqn: t.exposeString('nqn', { description: 'NVMe qualified name. Since 4.10.6.' }),
    hostname: t.exposeString('hostname', { description: 'Host name. Since 4.10.20.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'When the host was added. Since 0.6.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'When the host record last changed. Since 0.6.' }),
    cpuStatus: t.expose('cpuStatus', { type: HwMonitorStatus, description: 'CPU hardware monitor status. Since 4.10.0.' }),
    memoryStatus: t.expose('memoryStatus', { type: HwMonitorStatus, description: 'Memory hardware monitor status. Since 4.10.0.' }),
    diskStatus: t.expose('diskStatus', { type: HwMonitorStatus, description: 'Disk hardware monitor status. Since 4.10.0.' }),
    nicStatus: t.expose('nicStatus', { type: HwMonitorStatus, description: 'NIC hardware monitor status. Since 4.10.0.' }),
    gpuStatus: t.expose('gpuStatus', { type: HwMonitorStatus, description: 'GPU hardware monitor status. Since 4.10.0.' }),
    powerSupplyStatus: t.expose('powerSupplyStatus', { type: HwMonitorStatus, description: 'Power supply hardware monitor status. Since 4.10.0.' }),
    fanStatus: t.expose('fanStatus', { type: HwMonitorStatus, description: 'Fan hardware monitor status. Since 4.10.0.' }),
    raidStatus: t.expose('raidStatus', { type: HwMonitorStatus, description: 'RAID hardware monitor status. Since 4.10.0.' }),
    temperatureStatus: t.expose('temperatureStatus', { type: HwMonitorStatus, description: 'Temperature hardware monitor status. Since 4.10.0.' }),
    networkFacts: t.loadable({
      type: HostNetworkFactsRef,
      nullable: true,
      description: 'Bonds and NICs of the host (GetHostNetworkFacts: one upstream request per host). Null when they cannot be read (with an error). Since 3.5.0.',
      extensions: { ...reads<HostRecord>('uuid'), ...callsPerParent() },
      load: loadNetworkFacts,
      resolve: (host) => host.uuid,
    }),
    blockDevices: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Block devices of the host (GetHostBlockDevices). The item fields are unshown in the spec, hence JSON. Null when they cannot be read (with an error). Since 4.10.0.',
      extensions: { ...reads<HostRecord>('uuid'), ...callsPerParent() },
      resolve: async (host, _args, context) => {
        const body = await context.session.read(GetHostBlockDevices, { uuid: host.uuid });
        return body.blockDevices ?? body;
      },
    }),
    sensors: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Hardware sensors of the host (GetHostSensors). The item fields are unshown in the spec, hence JSON. Null when they cannot be read (with an error). Since 4.10.0.',
      extensions: { ...reads<HostRecord>('uuid'), ...callsPerParent() },
      resolve: async (host, _args, context) => {
        const body = await context.session.read(GetHostSensors, { uuid: host.uuid });
        return body.sensors ?? body;
      },
    }),
  }),
});

export const HostConnection = builder.connectionObject({ type: HostRef, name: 'HostConnection' });
