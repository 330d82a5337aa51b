/**
 * Hosts: the type and its network facts (bonds, NICs), the queries, the mutations, the loaders
 * and the prefetch of per-host relations.
 */
import './types.js';
import './network-facts.js';
import './queries.js';
import './mutations.js';

export { HostNetworkBondingRef, HostNicRef, InterfaceType } from './network-facts.js';
export { followsHost, prefetchFromHostUuid } from './prefetch.js';
export { HostNetworkFactsRef, HostRef, HwMonitorStatus } from './types.js';
