/**
 * VM instances: the type and the records embedded in it, the queries, the mutations and the
 * loaders behind them.
 */
import './types.js';
import './queries.js';
import './mutations.js';

export { NicDriverType, UsedIpRef, VmCdRomRef, VmNicRef } from './embedded.js';
export { VmInstanceRef } from '../node-refs.js';
