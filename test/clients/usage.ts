/**
 * What a frontend does with the generated types, checked by `tsc` in `test/e2e/codegen.test.ts` (never
 * run): each line either compiles, proving a type is what the SDL promises, or is a
 * `@ts-expect-error` that compiles only while the mistake it makes is still a type error.
 */
import type { ResultOf, VariablesOf } from '@graphql-typed-document-node/core';
import type { DashboardQuery } from './documents/Dashboard';
import type { JobCompletedSubscription } from './documents/JobCompleted';
import type { LiveHostsQuery } from './documents/LiveHosts';
import type { RunningJobsQuery } from './documents/RunningJobs';
import type { UpdateHostNqnMutation } from './documents/UpdateHostNqn';
import type { VmListQuery } from './documents/VmList';
import { VmSummaryFragment } from './documents/VmSummary';
import { useFragment, type FragmentType } from './gql';
import type { HwMonitorStatus, JobOperation, JobStatus, UserErrorCode, VmState } from './gql/graphql';

/** True only when A and B are the same type (not merely assignable). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(verdict: Equal<A, B>) => verdict;

declare const dashboard: ResultOf<typeof DashboardQuery>;
declare const vmList: ResultOf<typeof VmListQuery>;
declare const saved: ResultOf<typeof UpdateHostNqnMutation>;
declare const completed: ResultOf<typeof JobCompletedSubscription>;
declare const live: ResultOf<typeof LiveHostsQuery>;
declare const running: ResultOf<typeof RunningJobsQuery>;

// The dashboard: a connection may be null (partial data), and so may each of its nodes (a record the
// gateway could not read); a scalar field may be null.
export const firstHostName: string | null | undefined = dashboard.hosts?.nodes[0]?.name;
same<typeof firstHostName, string | null | undefined>(true);
// @ts-expect-error `hosts` is null when it cannot be read: the client must check it.
export const unchecked = dashboard.hosts.totalCount;
// @ts-expect-error `hostname` was not selected, so it is not in the result type.
export const unselected = dashboard.hosts?.nodes[0]?.hostname;
export const cpuStatus = dashboard.hosts?.nodes[0]?.cpuStatus;
same<typeof cpuStatus, HwMonitorStatus | null | undefined>(true);
// @ts-expect-error An enum is its closed set of values: a typo is a type error.
export const typo: HwMonitorStatus = 'OK';

// futureProofEnums: an enum's type also holds '%future added value', so a switch over it needs a
// default; the API answers such a value as the enum's fallback (OTHER) with the text in <field>Raw.
same<Exclude<VmState, 'RUNNING' | 'STOPPED' | 'DESTROYED' | 'OTHER'>, '%future added value'>(true);
export function stateLabel(state: VmState, stateRaw: string | null): string {
  switch (state) {
    case 'RUNNING':
      return 'Running';
    case 'STOPPED':
      return 'Stopped';
    case 'DESTROYED':
      return 'Destroyed';
    default:
      return stateRaw ?? 'Unknown';
  }
}

// Fragment masking: a VM row's fields are read through its fragment, not through the query.
export function vmRow(vm: FragmentType<typeof VmSummaryFragment>) {
  const row = useFragment(VmSummaryFragment, vm);
  same<typeof row.lastOpDate, string | null>(true); // DateTime: ISO 8601 text
  same<NonNullable<(typeof row.volumes)[number]>['size'], number | null>(true); // Long: a JSON number
  return { name: row.name, disks: row.volumes.length, firstIp: row.nics[0]?.ip };
}
const firstVm = dashboard.hosts?.nodes[0]?.vmInstances?.nodes[0];
// @ts-expect-error The query itself does not see the fragment's fields (masked).
export const maskedName = firstVm?.name;
export const dashboardRow = firstVm ? vmRow(firstVm) : null;

// The paged list: `first` is required, `after` is the previous page's `endCursor`.
export const nextPage: VariablesOf<typeof VmListQuery> = { first: 50, after: vmList.vmInstances?.pageInfo.endCursor ?? null, filter: { state: 'RUNNING' } };
// @ts-expect-error A filter takes the enum, not the upstream's spelling.
export const wireSpelling: VariablesOf<typeof VmListQuery> = { first: 50, filter: { state: 'Running' } };
// @ts-expect-error `$first` is declared `Int!`.
export const noFirst: VariablesOf<typeof VmListQuery> = { after: null };
same<typeof vmList.vmInstances, ResultOf<typeof VmListQuery>['vmInstances']>(true);
export const hasNextPage: boolean | undefined = vmList.vmInstances?.pageInfo.hasNextPage;
export const placedOn: string | null | undefined = vmList.vmInstances?.edges[0]?.node?.host?.name;

// The mutation: a nullable payload (a mutation that cannot run nulls only itself), its status,
// and userErrors a form marks its inputs with.
export const saveVariables: VariablesOf<typeof UpdateHostNqnMutation> = { input: { uuid: '0123456789abcdef0123456789abcdef', nqn: 'nqn.2014-08.org.nvmexpress:uuid:1' } };
// @ts-expect-error `nqn` is required by UpdateHostNqnInput.
export const missingNqn: VariablesOf<typeof UpdateHostNqnMutation> = { input: { uuid: '0123456789abcdef0123456789abcdef' } };
export const saveStatus: JobStatus | undefined = saved.updateHostNqn?.status;
// @ts-expect-error the payload is nullable: a client checks it before reading it.
export const uncheckedStatus: JobStatus = saved.updateHostNqn.status;
// @ts-expect-error `job` is null when the gateway refused the input before starting one.
export const uncheckedJob: string | undefined = saved.updateHostNqn?.job.id;
export function errorsByField(): Map<string, string> {
  const byField = new Map<string, string>();
  for (const error of saved.updateHostNqn?.userErrors ?? []) {
    // `field` is the path into the variables, e.g. ["input", "nqn"]; null when no input is to blame.
    const code: UserErrorCode = error.code;
    byField.set(error.field?.at(-1) ?? '', `${code}: ${error.message}`);
  }
  return byField;
}
// @ts-expect-error a UserErrorCode is a closed set: a typo is a type error.
export const badCode: UserErrorCode = 'INVALID';

// The subscription: the finished job, its user errors read through the WritePayload interface.
export const succeeded: boolean = completed.jobCompleted.status === 'SUCCEEDED';
export const failedWith: UserErrorCode[] =
  completed.jobCompleted.payload && 'userErrors' in completed.jobCompleted.payload ? completed.jobCompleted.payload.userErrors.map((error) => error.code) : [];
export const operation: JobOperation = completed.jobCompleted.operation;
// @ts-expect-error 'DONE' is not a JobStatus: the comparison can never be true.
export const neverTrue: boolean = completed.jobCompleted.status === 'DONE';

// The jobs of a reloaded dashboard.
export const runningIds: string[] = running.jobs?.nodes.flatMap((job) => (job ? [job.id] : [])) ?? [];
export const runningOperations: JobOperation[] = running.jobs?.nodes.flatMap((job) => (job ? [job.operation] : [])) ?? [];

// The live query: typed like any query.
export const liveStatuses: (string | null)[] = live.hosts?.nodes.flatMap((host) => (host ? [host.status] : [])) ?? [];
