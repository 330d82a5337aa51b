/**
 * What the mutation suites over the simulator share: a harness per suite with the webhook mode it
 * runs under, records taken once per suite, a mutation sent with its input, and the exact upstream
 * request a job carried.
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { JournalEntry } from '../../src/simulator/server.js';
import { startHarness, type Harness } from './harness.js';

export interface UpstreamErrorShape {
  code: string;
  description: string | null;
  details: string | null;
  cause: { code: string; cause: { code: string } | null } | null;
}

export interface PayloadBase {
  clientMutationId: string | null;
  error: UpstreamErrorShape | null;
  job: { id: string; status: string; operation: string };
}

export const COMMON_FIELDS = 'clientMutationId error { code description details cause { code cause { code } } } job { id status operation }';

/** A uuid no record of the estate has. */
export const UNKNOWN_UUID = 'f'.repeat(32);

export interface MutationSuite {
  /** The suite's harness (set once its `beforeAll` ran). */
  readonly harness: Harness;
  /** The tenant of the harness's default credentials. */
  readonly tenantId: string;
  /** A record no other test of the suite took, that `accept` accepts. */
  take<T extends { uuid: string }>(records: Iterable<T>, accept: (record: T) => boolean, what: string): T;
  /** Sends `name(input:)` selecting `COMMON_FIELDS` and `selection`; expects no GraphQL error. */
  mutate<P extends PayloadBase>(name: string, selection: string, input: Record<string, unknown>): Promise<P>;
  /** The write request that carried this job, as the simulator received it. */
  sentFor(jobId: string): JournalEntry;
  /** Asserts the exact request: operation, method, path, raw query, parsed body. */
  expectSent(jobId: string, expected: { operation: string; method: string; path: string; query?: string; body: unknown }): void;
  /** `job(id)` with `selection`, once it is no longer running (or after 10 s). */
  waitForJob<T>(id: string, selection: string): Promise<{ status: string } & T>;
}

/** Registers the suite's hooks (call it inside a `describe`) and answers its helpers. */
export function mutationSuite(dropWebhooks: boolean): MutationSuite {
  let harness: Harness | undefined;
  /** Records taken by a test, so that no two tests work on the same one. */
  const taken = new Set<string>();
  const started = (): Harness => {
    if (harness === undefined) throw new Error('the suite has not started');
    return harness;
  };

  beforeAll(async () => {
    harness = await startHarness({ config: { jobPollAfterMs: 100 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  beforeEach(() => {
    started().simulator.configure({ dropWebhooks, asyncDelayMs: 5 });
  });

  const suite: MutationSuite = {
    get harness() {
      return started();
    },
    get tenantId() {
      return started().simulator.credentials.tenantId;
    },
    take(records, accept, what) {
      for (const record of records) {
        if (!taken.has(record.uuid) && accept(record)) {
          taken.add(record.uuid);
          return record;
        }
      }
      throw new Error(`the estate has no ${what} left`);
    },
    async mutate<P extends PayloadBase>(name: string, selection: string, input: Record<string, unknown>): Promise<P> {
      const inputType = `${name.charAt(0).toUpperCase()}${name.slice(1)}Input`;
      const response = await started().gql<Record<string, P>>(
        `mutation($input: ${inputType}!) { ${name}(input: $input) { ${COMMON_FIELDS} ${selection} } }`,
        { input },
      );
      expect(response.errors).toBeUndefined();
      return response.data![name]!;
    },
    sentFor(jobId) {
      const entries = started().simulator.journal().filter((entry) => entry.headers['x-job-uuid'] === jobId && entry.operation !== 'PollJob');
      expect(entries).toHaveLength(1);
      const entry = entries[0]!;
      expect(entry.headers['x-web-hook']).toMatch(new RegExp(`^${started().url}/webhooks/jobs/${jobId}/[A-Za-z0-9_-]{20,}$`));
      return entry;
    },
    expectSent(jobId, expected) {
      const { operation, method, path, query, body } = suite.sentFor(jobId);
      expect({ operation, method, path, query, body }).toEqual({ query: '', ...expected });
    },
    async waitForJob<T>(id: string, selection: string): Promise<{ status: string } & T> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const response = await started().gql<{ job: { status: string } & T }>(`query($id: ID!) { job(id: $id) { status ${selection} } }`, { id });
        const job = response.data!.job;
        if (job.status !== 'RUNNING' || Date.now() > deadline) return job;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
  return suite;
}
