/**
 * A host's network facts (GetHostNetworkFacts): its bonds and NICs, records with no query of
 * their own, found by their `<hostUuid>.<uuid>` global ids through their host's facts.
 */
import { builder } from '../../builder.js';
import type { HostBondingRecord, HostNetworkFactsRecord } from '../../upstream/records.js';
import { EMBEDDED_GLOBAL_ID, embeddedId, loadEmbedded } from '../kit/embedded-ids.js';
import { follows } from '../kit/record-fields.js';
import { loadNetworkFacts } from './loaders.js';
import { HostRef } from './types.js';

export const InterfaceType = builder.enumType('InterfaceType', {
  description:
    'How a host NIC is attached. The upstream documents `nomaster`, `bridgeSlave`, `bondSlave` and returns `noMaster`, `bridgeSlave`, `bondingSlave`; both spellings map here.',
  values: {
    NO_MASTER: { value: 'noMaster', description: 'A standalone NIC (`nomaster` / `noMaster`).' },
    BRIDGE_SLAVE: { value: 'bridgeSlave', description: 'A NIC enslaved to a bridge.' },
    BONDING_SLAVE: { value: 'bondingSlave', description: 'A NIC enslaved to a bond (`bondSlave` / `bondingSlave`).' },
  } as const,
});

export const HostNetworkFactsRef = builder.objectRef<HostNetworkFactsRecord>('HostNetworkFacts');

HostNetworkFactsRef.implement({
  description: 'Network facts of a host: its bonds and its NICs (GetHostNetworkFacts). Since 3.5.0.',
  fields: (t) => ({
    bondings: t.field({
      type: [HostNetworkBondingRef],
      nullable: false,
      description: 'Bonds configured on the host. Since 3.5.0.',
      resolve: (facts) => facts.bondings,
    }),
    nics: t.field({
      type: [HostNicRef],
      nullable: false,
      description: 'Physical NICs of the host. Since 3.5.0.',
      resolve: (facts) => facts.nics,
    }),
  }),
});

// A host's bonds and NICs are found in its network facts, read once per host of the batch.
const loadBondings = loadEmbedded('HostNetworkBonding', loadNetworkFacts, (facts: HostNetworkFactsRecord) => facts.bondings);
const loadHostNics = loadEmbedded('HostNic', loadNetworkFacts, (facts: HostNetworkFactsRecord) => [
  ...facts.nics,
  ...facts.bondings.flatMap((bond) => bond.slaves),
]);

export const HostNetworkBondingRef = builder.loadableNode('HostNetworkBonding', {
  description: 'A bond of host NICs (HostNetworkBondingInventory). Since 4.7.0; network facts carry bonds since 3.5.0.',
  id: { resolve: (bond) => embeddedId(bond.hostUuid, bond.uuid) },
  extensions: EMBEDDED_GLOBAL_ID,
  load: loadBondings,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier.' }),
    hostUuid: t.expose('hostUuid', { type: 'Uuid', description: 'Host the bond is on.' }),
    host: t.field({
      ...follows<HostBondingRecord>('hostUuid'),
      type: HostRef,
      description: 'Host the bond is on. Null when it cannot be read (with an error).',
    }),
    bondingName: t.exposeString('bondingName', { description: 'Bond name, e.g. `bond0`.' }),
    bondingType: t.exposeString('bondingType', { description: 'Bond usage state: `noBridge` or `bridgeSlave`. Since 4.7.0.' }),
    speed: t.expose('speed', { type: 'Long', description: 'Bond speed. Since 4.7.0.' }),
    miimon: t.expose('miimon', { type: 'Long', description: 'MII link monitoring interval.' }),
    mode: t.exposeString('mode', { description: 'Bonding mode, e.g. `802.3ad`.' }),
    xmitHashPolicy: t.exposeString('xmitHashPolicy', { description: 'Transmit hash policy.' }),
    miiStatus: t.exposeString('miiStatus', { description: 'MII status, e.g. `up`.' }),
    mac: t.exposeString('mac', { description: 'MAC address of the bond.' }),
    gateway: t.exposeString('gateway', { description: 'Gateway. Since 4.7.0.' }),
    callBackIp: t.exposeString('callBackIp', { description: 'Callback IP. Since 4.7.0.' }),
    type: t.exposeString('type', { description: 'Bond type. Since 4.7.0.' }),
    description: t.exposeString('description', { description: 'Description. Since 4.7.0.' }),
    ipAddresses: t.exposeStringList('ipAddresses', { nullable: false, description: 'IP addresses on the bond.' }),
    allSlavesActive: t.exposeBoolean('allSlavesActive', { description: 'Whether every slave NIC is active.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time.' }),
    slaves: t.field({
      type: [HostNicRef],
      nullable: false,
      description: 'The NICs enslaved to this bond.',
      resolve: (bond) => bond.slaves,
    }),
  }),
});

export const HostNicRef = builder.loadableNode('HostNic', {
  description: 'A physical NIC of a host: a plain NIC or a bond slave (network facts record; slave record of the bond inventory). Since 3.5.0.',
  id: { resolve: (nic) => embeddedId(nic.hostUuid, nic.uuid) },
  extensions: EMBEDDED_GLOBAL_ID,
  load: loadHostNics,
  fields: (t) => ({
    uuid: t.expose('uuid', { type: 'Uuid', nullable: false, description: 'Identifier.' }),
    hostUuid: t.expose('hostUuid', { type: 'Uuid', description: 'Host the NIC is in.' }),
    host: t.field({ type: HostRef, nullable: true, description: 'Host the NIC is in. Null when it cannot be read (with an error).', resolve: (nic) => nic.hostUuid }),
    bondingUuid: t.expose('bondingUuid', { type: 'Uuid', description: 'Bond this NIC is a slave of, if any.' }),
    interfaceName: t.exposeString('interfaceName', { description: 'Interface name, e.g. `eth0`.' }),
    interfaceType: t.expose('interfaceType', { type: InterfaceType, description: 'How the NIC is attached (spellings normalized).' }),
    mac: t.exposeString('mac', { description: 'MAC address.' }),
    pciDeviceAddress: t.exposeString('pciDeviceAddress', { description: 'PCI device address.' }),
    speed: t.expose('speed', { type: 'Long', description: 'Link speed.' }),
    slaveActive: t.exposeBoolean('slaveActive', { description: 'Bond link status of this slave.' }),
    carrierActive: t.exposeBoolean('carrierActive', { description: 'Physical link status.' }),
    ipAddresses: t.exposeStringList('ipAddresses', { nullable: false, description: 'IP addresses on the NIC.' }),
    gateway: t.exposeString('gateway', { description: 'Gateway (bond inventory slave record). Since 4.7.0.' }),
    callBackIp: t.exposeString('callBackIp', { description: 'Callback IP (bond inventory slave record). Since 4.7.0.' }),
    offloadStatus: t.exposeString('offloadStatus', { description: 'Offload status (bond inventory slave record). Since 4.7.0.' }),
    description: t.exposeString('description', { description: 'Description (bond inventory slave record). Since 4.7.0.' }),
    createDate: t.expose('createDate', { type: 'DateTime', description: 'Creation time.' }),
    lastOpDate: t.expose('lastOpDate', { type: 'DateTime', description: 'Last update time.' }),
  }),
});

