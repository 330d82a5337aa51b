/**
 * Fibre-channel storage devices of the resource family: HBA ports (QueryHBADevice) and LUNs
 * (QueryFiberChannelLun), the hosts and VMs a LUN is mapped to, and `Host.hbaDevices`.
 */
import './hba-devices.js';
import './fiber-channel-luns.js';

export { FiberChannelLunRef } from './fiber-channel-luns.js';
export { HbaDeviceRef } from './hba-devices.js';
