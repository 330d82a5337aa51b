/**
 * Enums several resources share: a record's in-use state, its hypervisor and CPU architecture. Each takes its values
 * from one record field's set (`recordEnum`); the other fields that show it hold the same set
 * (`upstream/records.ts`), which the enum drift test checks field by field.
 */
import { recordEnum, recordEnums } from './kit/enums.js';

export const { ResourceState, HypervisorType } = recordEnums('host', {
  ResourceState: {
    field: 'state',
    description: 'Whether a record is in use (`state` of hosts, volumes, LUNs, SNS platforms and endpoints).',
    values: {
      Enabled: 'In use (`Enabled`).',
      Disabled: 'Taken out of use (`Disabled`), e.g. an SNS platform after ChangeSNSApplicationPlatformState with `disable`.',
    },
  },
  HypervisorType: {
    field: 'hypervisorType',
    description: 'The hypervisor of a host, a VM or a VM NIC.',
    values: { KVM: 'KVM (`KVM`).' },
  },
});

export const CpuArchitecture = recordEnum('CpuArchitecture', {
  record: 'vmInstance',
  field: 'architecture',
  description: 'The CPU architecture of a host or a VM, as the spec lists them. Since 0.6.',
  values: { x86_64: '64-bit x86 (`x86_64`).', aarch64: '64-bit ARM (`aarch64`).', Other: 'Any other architecture (`Other`).' },
});

