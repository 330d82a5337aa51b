/**
 * Host write operations: UpdateHostNqn and SetIpOnHostNetworkBonding.
 */
import { BONDING_WIRE, HOST_WIRE } from '../wire.js';
import { invalidArgument } from './arguments.js';
import { find, inventoryResult, parseIpv4, requireConnectedHost, type Result, type WriteContext } from './context.js';

const NQN_PATTERN = /^nqn\.\d{4}-\d{2}\.[^\s:]+(:\S+)?$/;
/** NVMe base specification: an NQN is at most 223 bytes. */
const NQN_MAX_BYTES = 223;

export function updateHostNqn(context: WriteContext): Result {
  const { args, store, now } = context;
  const host = find(context, 'host', args.required('uuid'));
  const nqn = args.required('nqn');
  if (!NQN_PATTERN.test(nqn) || Buffer.byteLength(nqn) > NQN_MAX_BYTES) {
    throw invalidArgument(`nqn[${nqn}] is not an NVMe qualified name (nqn.yyyy-mm.<reverse domain>[:<name>], at most 223 bytes)`);
  }
  requireConnectedHost(host, 'update the NQN');
  store.hosts.update(host, { nqn, lastOpDate: now });
  return inventoryResult(store.wire.write(HOST_WIRE, host));
}

export function setIpOnHostNetworkBonding(context: WriteContext): Result {
  const { args, store, now } = context;
  const bond = find(context, 'bonding', args.required('bondingUuid'));
  const ipAddress = args.text('ipAddress');
  const netmask = args.text('netmask');
  const isDefaultRoute = args.flag('isDefaultRoute');
  if ((ipAddress === undefined) !== (netmask === undefined)) {
    throw invalidArgument('ipAddress and netmask must be given together');
  }
  if (isDefaultRoute === true && ipAddress === undefined) {
    throw invalidArgument('isDefaultRoute needs an ipAddress');
  }
  const host = find(context, 'host', bond.hostUuid);
  requireConnectedHost(host, 'set an IP on a bond');
  if (ipAddress === undefined || netmask === undefined) {
    store.bondings.update(bond, { ipAddresses: [], gateway: null, lastOpDate: now });
    return inventoryResult(store.wire.write(BONDING_WIRE, bond));
  }
  const address = parseIpv4(ipAddress);
  if (address === null) throw invalidArgument(`ipAddress[${ipAddress}] is not an IPv4 address`);
  const prefix = netmaskPrefix(netmask);
  if (prefix === null) throw invalidArgument(`netmask[${netmask}] is not an IPv4 netmask`);
  const gateway = isDefaultRoute === undefined ? bond.gateway : isDefaultRoute ? firstHostAddress(address, prefix) : null;
  store.bondings.update(bond, { ipAddresses: [`${ipAddress}/${prefix}`], gateway, lastOpDate: now });
  return inventoryResult(store.wire.write(BONDING_WIRE, bond));
}

function netmaskPrefix(text: string): number | null {
  const mask = parseIpv4(text);
  if (mask === null) return null;
  const bits = mask.toString(2).padStart(32, '0');
  return /^1*0*$/.test(bits) ? bits.indexOf('0') === -1 ? 32 : bits.indexOf('0') : null;
}

function firstHostAddress(address: number, prefix: number): string {
  const size = 2 ** (32 - prefix);
  return formatIpv4(Math.floor(address / size) * size + 1);
}

function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}
