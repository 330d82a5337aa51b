/**
 * A host's network facts (GetHostNetworkFacts): its bonds and NICs, records with no query of
 * their own, found by their `<hostUuid>.<uuid>` global ids through their host's facts.
 */
import { builder } from '../../builder.js';
import { hostNetworkFacts, hostBonding, hostNic, type HostNetworkFactsRecord } from '../../upstream/records.js';
import { embeddedNode, loadEmbedded } from '../kit/embedded-ids.js';
import { recordEnum, recordEnums } from '../kit/enums.js';
import { embeddedList, exposeRecordEnums, exposeRecordFields, follows } from '../kit/record-fields.js';
import { readableItems } from '../../upstream/wire.js';
import { loadNetworkFacts } from './loaders.js';
import { HostNetworkFactsRef, HostRef } from './types.js';

export const InterfaceType = recordEnum('InterfaceType', {
  record: 'hostNic',
  field: 'interfaceType',
  description:
    'How a host NIC is attached. The upstream documents `nomaster`, `bridgeSlave`, `bondSlave` and returns `noMaster`, `bridgeSlave`, `bondingSlave`; both spellings map here.',
  values: {
    noMaster: 'A standalone NIC (`nomaster` / `noMaster`).',
    bridgeSlave: 'A NIC enslaved to a bridge.',
    bondingSlave: 'A NIC enslaved to a bond (`bondSlave` / `bondingSlave`).',
  },
});

export const { BondingType, BondingMode, XmitHashPolicy, MiiStatus, HostNetworkBondingType } = recordEnums('hostBonding', {
  BondingType: {
    field: 'bondingType',
    description: 'Whether a bond carries addresses itself or is enslaved to a bridge (`bondingType`). Since 4.7.0.',
    values: {
      noBridge: 'The bond carries addresses itself (`noBridge`).',
      bridgeSlave: 'The bond is enslaved to a bridge (`bridgeSlave`).',
    },
  },
  BondingMode: {
    field: 'mode',
    description: 'How a Linux bond spreads traffic over its slaves (its `mode`, as the kernel names it).',
    values: {
      'balance-rr': 'Round robin (`balance-rr`).',
      'active-backup': 'One slave active, the others standing by (`active-backup`).',
      'balance-xor': 'A slave chosen by the transmit hash policy (`balance-xor`).',
      broadcast: 'Every frame on every slave (`broadcast`).',
      '802.3ad': { name: 'IEEE_802_3AD', description: 'LACP link aggregation, IEEE 802.3ad (`802.3ad`).' },
      'balance-tlb': 'Adaptive transmit load balancing (`balance-tlb`).',
      'balance-alb': 'Adaptive load balancing (`balance-alb`).',
    },
  },
  XmitHashPolicy: {
    field: 'xmitHashPolicy',
    description: 'What a Linux bond hashes to choose a slave (its `xmit_hash_policy`, as the kernel names it).',
    values: {
      layer2: 'MAC addresses (`layer2`).',
      'layer2+3': 'MAC and IP addresses (`layer2+3`).',
      'layer3+4': 'IP addresses and ports (`layer3+4`).',
      'encap2+3': 'As `layer2+3`, on the inner headers of tunnelled traffic (`encap2+3`).',
      'encap3+4': 'As `layer3+4`, on the inner headers of tunnelled traffic (`encap3+4`).',
      'vlan+srcmac': 'VLAN id and source MAC (`vlan+srcmac`).',
    },
  },
  MiiStatus: {
    field: 'miiStatus',
    description: 'A bond\'s MII link status.',
    values: { up: 'The link is up (`up`).', down: 'The link is down (`down`).' },
  },
  HostNetworkBondingType: {
    field: 'type',
    description: 'How a bond is implemented. Since 4.7.0.',
    values: { LinuxBonding: 'The Linux kernel\'s bonding driver (`LinuxBonding`).' },
  },
});

HostNetworkFactsRef.implement({
  extensions: { since: hostNetworkFacts.since },
  description: 'Network facts of a host: its bonds and its NICs (GetHostNetworkFacts). Since 3.5.0.',
  fields: (t) => ({
    bondings: embeddedList(t, 'bondings', HostNetworkBondingRef, 'Bonds configured on the host; one the upstream sent unreadable is null with an error at its index. Since 3.5.0.'),
    nics: embeddedList(t, 'nics', HostNicRef, 'Physical NICs of the host; one the upstream sent unreadable is null with an error at its index. Since 3.5.0.'),
  }),
});

// A host's bonds and NICs are found in its network facts, read once per host of the batch.
const loadBondings = loadEmbedded('HostNetworkBonding', loadNetworkFacts, (facts: HostNetworkFactsRecord) => facts.bondings);
const loadHostNics = loadEmbedded('HostNic', loadNetworkFacts, (facts: HostNetworkFactsRecord) => [
  ...facts.nics,
  ...readableItems(facts.bondings).flatMap((bond) => bond.slaves),
]);

export const HostNetworkBondingRef = builder.loadableNode('HostNetworkBonding', {
  description: 'A bond of host NICs (HostNetworkBondingInventory). Since 4.7.0; network facts carry bonds since 3.5.0.',
  ...embeddedNode(loadBondings, 'hostUuid', { since: hostBonding.since }),
  fields: (t) => ({
    ...exposeRecordFields(t, 'hostBonding', 'uuid', 'hostUuid'),
    host: follows(t, 'hostUuid', HostRef, 'Host the bond is on. Null when it cannot be read (with an error).'),
    ...exposeRecordFields(t, 'hostBonding', 'bondingName'),
    ...exposeRecordEnums(t, 'hostBonding', BondingType, 'bondingType'),
    ...exposeRecordFields(t, 'hostBonding', 'speed', 'miimon'),
    ...exposeRecordEnums(t, 'hostBonding', BondingMode, 'mode'),
    ...exposeRecordEnums(t, 'hostBonding', XmitHashPolicy, 'xmitHashPolicy'),
    ...exposeRecordEnums(t, 'hostBonding', MiiStatus, 'miiStatus'),
    ...exposeRecordEnums(t, 'hostBonding', HostNetworkBondingType, 'type'),
    ...exposeRecordFields(t, 'hostBonding', 'mac', 'gateway', 'callBackIp', 'description', 'ipAddresses', 'allSlavesActive', 'createDate', 'lastOpDate'),
    slaves: embeddedList(t, 'slaves', HostNicRef, 'The NICs enslaved to this bond; one the upstream sent unreadable is null with an error at its index.'),
  }),
});

export const HostNicRef = builder.loadableNode('HostNic', {
  description: 'A physical NIC of a host: a plain NIC or a bond slave (network facts record; slave record of the bond inventory). Since 3.5.0.',
  ...embeddedNode(loadHostNics, 'hostUuid', { since: hostNic.since }),
  fields: (t) => ({
    ...exposeRecordFields(t, 'hostNic', 'uuid', 'hostUuid'),
    host: t.field({ type: HostRef, nullable: true, description: 'Host the NIC is in. Null when it cannot be read (with an error).', resolve: (nic) => nic.hostUuid }),
    ...exposeRecordFields(t, 'hostNic', 'bondingUuid', 'interfaceName'),
    ...exposeRecordEnums(t, 'hostNic', InterfaceType, 'interfaceType'),
    ...exposeRecordFields(t, 'hostNic',
      'mac', 'pciDeviceAddress', 'speed', 'slaveActive', 'carrierActive', 'ipAddresses', 'gateway', 'callBackIp', 'offloadStatus',
      'description', 'createDate', 'lastOpDate',
    ),
  }),
});

