/**
 * Asynchronous writes end to end: the gateway's own X-Job-UUID and X-Web-Hook, the webhook
 * receiver (forgeries, replays, oversized bodies), the polling fallback, and the results
 * republished on jobCompleted / jobEvents over graphql-ws and SSE.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HOST_WIRE } from '../../src/simulator/wire.js';
import { errorCodes, startHarness, type Harness } from '../support/harness.js';
import { subscribeSse, subscribeWs } from '../support/subscriptions.js';

const UPDATE_NQN = /* GraphQL */ `
  mutation Update($input: UpdateHostNqnInput!) {
    updateHostNqn(input: $input) {
      clientMutationId
      host { uuid nqn }
      error { code cause { code } }
      job { id status operation }
    }
  }
`;

const JOB_FIELDS = 'id status operation payload { ... on UpdateHostNqnPayload { host { uuid nqn } } }';

interface UpdatePayload {
  updateHostNqn: {
    clientMutationId: string | null;
    host: { uuid: string; nqn: string } | null;
    error: { code: string; cause: { code: string } | null } | null;
    job: { id: string; status: string; operation: string };
  };
}

describe('asynchronous jobs', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { jobPollAfterMs: 100 } });
  });

  afterAll(async () => {
    await harness.close();
  });

  beforeEach(() => {
    harness.simulator.configure({ dropWebhooks: false, asyncDelayMs: 5 });
  });

  function connectedHost(): string {
    const { tenantId } = harness.simulator.credentials;
    const host = [...harness.simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status === 'Connected');
    if (!host) throw new Error('the estate has no connected host');
    return host.uuid;
  }

  function nqn(suffix: string): string {
    return `nqn.2014-08.org.nvmexpress:uuid:${suffix.padStart(8, '0')}-0000-4000-8000-000000000000`;
  }

  it('sends its own X-Job-UUID and X-Web-Hook, waits, and returns the new state', async () => {
    const uuid = connectedHost();
    const response = await harness.gql<UpdatePayload>(UPDATE_NQN, {
      input: { uuid, nqn: nqn('1'), clientMutationId: 'm-1' },
    });
    const payload = response.data!.updateHostNqn;
    expect(payload).toMatchObject({ clientMutationId: 'm-1', host: { uuid, nqn: nqn('1') }, error: null, job: { status: 'SUCCEEDED' } });

    const sent = harness.simulator.journal().find((entry) => entry.operation === 'UpdateHostNqn' && entry.headers['x-job-uuid'] === payload.job.id);
    expect(sent).toMatchObject({ method: 'PUT', path: `/svc/v1/hosts/nqn/${uuid}/actions`, body: { updateHostNqn: { nqn: nqn('1') } } });
    expect(sent!.headers['x-web-hook']).toMatch(new RegExp(`^${harness.url}/webhooks/jobs/${payload.job.id}/[A-Za-z0-9_-]{20,}$`));

    const readBack = await harness.gql<{ host: { nqn: string } }>('query($uuid: Uuid!) { host(uuid: $uuid) { nqn } }', { uuid });
    expect(readBack.data!.host.nqn).toBe(nqn('1'));
  });

  it('returns the upstream error with its cause chain when the write fails', async () => {
    const { tenantId } = harness.simulator.credentials;
    const disconnected = [...harness.simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status !== 'Connected');
    expect(disconnected, 'the demo estate has a disconnected host').toBeDefined();
    const response = await harness.gql<UpdatePayload>(UPDATE_NQN, { input: { uuid: disconnected!.uuid, nqn: nqn('2') } });
    expect(response.data!.updateHostNqn).toMatchObject({ host: null, error: { code: 'SYS.1006', cause: { code: 'HOST.1010' } }, job: { status: 'FAILED' } });
  });

  it('rejects a malformed Uuid before any upstream request', async () => {
    harness.resetStats();
    const response = await harness.gql(UPDATE_NQN, { input: { uuid: 'XYZ', nqn: nqn('3') } });
    expect(errorCodes(response)).toEqual(['BAD_USER_INPUT']);
    expect(harness.upstreamRequests()).toBe(0);
  });

  it('delivers an async result on jobCompleted over graphql-ws and SSE, and on jobEvents; another credential sees nothing', async () => {
    const params = { Authorization: harness.headers.authorization };
    const events = await subscribeWs<{ jobEvents: { id: string } }>(harness.url, `subscription { jobEvents { ${JOB_FIELDS} } }`, {}, params);
    const otherEvents = await subscribeWs<{ jobEvents: { id: string } }>(
      harness.url,
      `subscription { jobEvents { ${JOB_FIELDS} } }`,
      {},
      { authorization: harness.secondHeaders.authorization },
    );
    harness.simulator.configure({ asyncDelayMs: 300 });

    const started = await harness.gql<UpdatePayload>(UPDATE_NQN, { input: { uuid: connectedHost(), nqn: nqn('4'), async: true } });
    const job = started.data!.updateHostNqn.job;
    expect(job.status).toBe('RUNNING');
    expect(started.data!.updateHostNqn.host).toBeNull();

    const query = `subscription($id: ID!) { jobCompleted(id: $id) { ${JOB_FIELDS} } }`;
    const ws = await subscribeWs<{ jobCompleted: { status: string } }>(harness.url, query, { id: job.id }, params);
    const sse = await subscribeSse<{ jobCompleted: { status: string } }>(harness.url, query, { id: job.id }, { authorization: harness.headers.authorization });
    const foreign = await subscribeWs(harness.url, query, { id: job.id }, { authorization: harness.secondHeaders.authorization });

    await Promise.all([ws.completed, sse.completed]);
    for (const subscription of [ws, sse]) {
      expect(subscription.results).toEqual([
        { data: { jobCompleted: { id: job.id, status: 'SUCCEEDED', operation: 'UPDATE_HOST_NQN', payload: { host: { uuid: expect.any(String), nqn: nqn('4') } } } } },
      ]);
    }
    await foreign.completed;
    expect(foreign.results.map((result) => result.errors?.[0]?.extensions?.code)).toEqual(['FORBIDDEN']);
    expect(JSON.stringify(foreign.results)).not.toContain(nqn('4'));

    await events.waitFor(1);
    expect(events.results.map((result) => result.data?.jobEvents.id)).toContain(job.id);
    expect(otherEvents.results).toEqual([]);
    await Promise.all([events.close(), otherEvents.close(), ws.close(), sse.close(), foreign.close()]);
  });

  it('delivers jobCompleted at once for a job that already finished', async () => {
    const done = await harness.gql<UpdatePayload>(UPDATE_NQN, { input: { uuid: connectedHost(), nqn: nqn('5') } });
    const { id } = done.data!.updateHostNqn.job;
    const ws = await subscribeWs(harness.url, `subscription($id: ID!) { jobCompleted(id: $id) { id status } }`, { id }, {
      authorization: harness.headers.authorization,
    });
    await ws.completed;
    expect(ws.results).toEqual([{ data: { jobCompleted: { id, status: 'SUCCEEDED' } } }]);
  });

  it('reads a job with job(id) only with the credential that started it, echoing its clientMutationId', async () => {
    const done = await harness.gql<UpdatePayload>(UPDATE_NQN, { input: { uuid: connectedHost(), nqn: nqn('6'), clientMutationId: 'later' } });
    const { id } = done.data!.updateHostNqn.job;
    const mine = await harness.gql<{ job: { status: string; payload: { clientMutationId: string } } }>(
      'query($id: ID!) { job(id: $id) { status payload { ... on UpdateHostNqnPayload { clientMutationId } } } }',
      { id },
    );
    expect(mine.data!.job).toEqual({ status: 'SUCCEEDED', payload: { clientMutationId: 'later' } });
    const theirs = await harness.gql('query($id: ID!) { job(id: $id) { status } }', { id }, harness.secondHeaders);
    expect(errorCodes(theirs)).toEqual(['FORBIDDEN']);
  });

  it('completes by polling when the upstream drops every webhook', async () => {
    harness.simulator.configure({ dropWebhooks: true });
    const uuid = connectedHost();
    const response = await harness.gql<UpdatePayload>(UPDATE_NQN, { input: { uuid, nqn: nqn('7') } });
    expect(response.data!.updateHostNqn).toMatchObject({ host: { nqn: nqn('7') }, job: { status: 'SUCCEEDED' } });
    expect(harness.simulator.stats().byOperation.PollJob ?? 0).toBeGreaterThan(0);
  });

  describe('the webhook receiver', () => {
    async function runningJob(): Promise<{ id: string; hook: string }> {
      harness.simulator.configure({ dropWebhooks: true, asyncDelayMs: 60_000 });
      const started = await harness.gql<UpdatePayload>(UPDATE_NQN, { input: { uuid: connectedHost(), nqn: nqn('8'), async: true } });
      const { id } = started.data!.updateHostNqn.job;
      const hook = harness.simulator.journal().find((entry) => entry.headers['x-job-uuid'] === id)!.headers['x-web-hook']!;
      return { id, hook };
    }

    async function deliver(url: string, id: string, body: BodyInit, success = 'true'): Promise<number> {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'x-job-uuid': id, 'x-job-success': success },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    }

    async function statusOf(id: string): Promise<string> {
      const response = await harness.gql<{ job: { status: string } }>('query($id: ID!) { job(id: $id) { status } }', { id });
      return response.data!.job.status;
    }

    it('rejects an unknown job, a wrong secret, garbage, and a 10 MB body, and the job stays running', async () => {
      const { id, hook } = await runningJob();
      const good = JSON.stringify({ success: true, inventory: { uuid: '0'.repeat(32) } });
      expect(await deliver(hook.replace(id, 'f'.repeat(32)), 'f'.repeat(32), good)).toBe(404);
      expect(await deliver(hook.replace(/\/[^/]+$/, '/wrong-secret'), id, good)).toBe(403);
      expect(await deliver(hook, id, 'not json{')).toBe(400);
      expect(await deliver(hook, id, JSON.stringify([1, 2]))).toBe(400);
      expect(await deliver(hook, id, good, 'maybe')).toBe(400);
      expect(await deliver(hook, id, JSON.stringify({ nothing: true }), 'false')).toBe(400);
      expect(await deliver(hook, id, 'x'.repeat(10 * 1024 * 1024))).toBe(413);
      expect(await statusOf(id)).toBe('RUNNING');
    });

    it('publishes a result delivered twice only once', async () => {
      const { id, hook } = await runningJob();
      const events = await subscribeWs<{ jobEvents: { id: string } }>(harness.url, 'subscription { jobEvents { id status } }', {}, {
        authorization: harness.headers.authorization,
      });
      const body = JSON.stringify({ success: true, inventory: harness.simulator.store.wire.write(HOST_WIRE, harness.simulator.store.hosts.getAny(connectedHost())!) });
      expect(await deliver(hook, id, body)).toBe(200);
      expect(await deliver(hook, id, body)).toBe(200);
      await events.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(events.results.filter((result) => result.data?.jobEvents.id === id)).toHaveLength(1);
      expect(await statusOf(id)).toBe('SUCCEEDED');
      await events.close();
    });
  });
});
