/**
 * The `Host` type: HostInventory read through the cursor family (resourceType `host`),
 * with the hardware monitor statuses, NQN and hostname, and the resource family's per-host GETs as
 * fields (network facts, block devices, sensors).
 */
import { builder, type GatewaySchemaTypes } from '../../builder.js';
import { GetHostBlockDevices, GetHostNetworkFacts, GetHostSensors } from '../../upstream/operations/index.js';
import type { HostNetworkFactsRecord, HostRecord } from '../../upstream/records.js';
import { describeSince } from '../../upstream/releases.js';
import { recordEnums } from '../kit/enums.js';
import { nodeByUuid } from '../kit/families.js';
import { entityByUuid } from '../kit/federation.js';
import { backedBy, exposeRecordEnums, exposeRecordFields, reads } from '../kit/record-fields.js';
import { callsPerParent } from '../kit/upstream-calls.js';
import { CpuArchitecture, HypervisorType, ResourceState } from '../common-enums.js';
import { hosts, loadNetworkFacts } from './loaders.js';

type Types = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;

export const { HwMonitorStatus, HostStatus, IpmiPowerStatus } = recordEnums('host', {
  HwMonitorStatus: {
    field: 'cpuStatus',
    description: 'State reported by a host hardware monitor. Since 4.10.0.',
    values: { Normal: 'The component works normally.', Error: 'The component reports a fault.', Unknown: 'The monitor has no reading.' },
  },
  HostStatus: {
    field: 'status',
    description: 'Whether the management node reaches a host.',
    values: { Connected: 'The host answers (`Connected`).', Disconnected: 'The host does not answer (`Disconnected`): its VMs are not placed.' },
  },
  IpmiPowerStatus: {
    field: 'ipmiPowerStatus',
    description: 'A host\'s chassis power as its IPMI controller reports it.',
    values: {
      'Chassis Power is on': { name: 'ON', description: 'Powered on (`Chassis Power is on`).' },
      'Chassis Power is off': { name: 'OFF', description: 'Powered off (`Chassis Power is off`).' },
    },
  },
});

/**
 * A field of a per-host GET whose answer the spec leaves unshown (one upstream request per host):
 * the list under `key` as JSON, or the whole answer when it has no such list.
 */
function unshownPerHostRead(
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, HostRecord>,
  operation: typeof GetHostBlockDevices | typeof GetHostSensors,
  key: string,
  what: string,
) {
  return t.field({
    type: 'JSON',
    nullable: true,
    description: describeSince(
      `${what} of the host (${operation.name}). The item fields are unshown in the spec, hence JSON. Null when they cannot be read (with an error).`,
      operation.since,
    ),
    extensions: { ...reads<HostRecord>('uuid'), ...callsPerParent(), since: operation.since },
    resolve: async (host, _args, context) => {
      const body = await context.session.read(operation, { uuid: host.uuid });
      return body[key] ?? body;
    },
  });
}

/**
 * A host's network facts, as its `networkFacts` field answers them: declared beside the host, and
 * implemented with the bonds and NICs they hold (`network-facts.ts`), which point back at the host.
 */
export const HostNetworkFactsRef = builder.objectRef<HostNetworkFactsRecord>('HostNetworkFacts');

export const HostRef = builder.loadableNode('Host', {
  description: 'A physical host running the hypervisor (HostInventory). Since 0.6.',
  ...nodeByUuid(hosts, 'Host'),
  extensions: backedBy('host'),
  fields: (t) => ({
    ...exposeRecordFields(t, 'host', 'uuid', 'name', 'description', 'zoneUuid', 'clusterUuid', 'managementIp'),
    ...exposeRecordEnums(t, 'host', HypervisorType, 'hypervisorType'),
    ...exposeRecordEnums(t, 'host', ResourceState, 'state'),
    ...exposeRecordEnums(t, 'host', HostStatus, 'status'),
    ...exposeRecordFields(t, 'host',
      'totalCpuCapacity', 'availableCpuCapacity', 'totalMemoryCapacity', 'availableMemoryCapacity', 'cpuSockets', 'cpuNum', 'ipmiAddress',
      'ipmiUsername',
    ),
    ...exposeRecordEnums(t, 'host', IpmiPowerStatus, 'ipmiPowerStatus'),
    ...exposeRecordFields(t, 'host', 'ipmiPort'),
    ...exposeRecordEnums(t, 'host', CpuArchitecture, 'architecture'),
    ...exposeRecordFields(t, 'host', 'nqn', 'hostname', 'createDate', 'lastOpDate'),
    ...exposeRecordEnums(t, 'host', HwMonitorStatus,
      'cpuStatus', 'memoryStatus', 'diskStatus', 'nicStatus', 'gpuStatus', 'powerSupplyStatus', 'fanStatus', 'raidStatus',
      'temperatureStatus',
    ),
    networkFacts: t.loadable({
      type: HostNetworkFactsRef,
      nullable: true,
      description: 'Bonds and NICs of the host (GetHostNetworkFacts: one upstream request per host). Null when they cannot be read (with an error). Since 3.5.0.',
      extensions: { ...reads<HostRecord>('uuid'), ...callsPerParent(), since: GetHostNetworkFacts.since },
      load: loadNetworkFacts,
      resolve: (host) => host.uuid,
    }),
    blockDevices: unshownPerHostRead(t, GetHostBlockDevices, 'blockDevices', 'Block devices'),
    sensors: unshownPerHostRead(t, GetHostSensors, 'sensors', 'Hardware sensors'),
  }),
});

// A Federation entity: other subgraphs reference it by uuid (or id), `_entities` loads it like a page does.
entityByUuid(HostRef, 'Host');
