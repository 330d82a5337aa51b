/**
 * The default execution engine (graphql-jit, GRAPHQL_JIT) answers as graphql-js does where
 * graphql-jit alone answered wrongly: a variable's default value, a subscription's literal
 * arguments, a document holding several operations, the order of fields beside fragments and the
 * locations of errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { subscribeSse, subscribeWs } from '../support/subscriptions.js';

describe('the default execution engine', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness.close();
  });

  it('uses the default of a non-null variable the request does not send', async () => {
    const response = await harness.gql<{ vmInstances: { nodes: { uuid: string }[] } }>(
      'query Q($n: Int! = 2) { vmInstances(first: $n) { nodes { uuid } } }',
    );
    expect(response.errors).toBeUndefined();
    expect(response.data!.vmInstances.nodes).toHaveLength(2);
  });

  it('uses the default of a non-null variable in @include and inside an input object', async () => {
    const response = await harness.gql<{ hosts: { nodes: { uuid: string; name?: string }[] } }>(
      'query Q($named: Boolean! = false, $direction: OrderDirection! = DESC) { hosts(first: 2, orderBy: { field: NAME, direction: $direction }) { nodes { uuid name @include(if: $named) } } }',
    );
    expect(response.errors).toBeUndefined();
    const names = [...harness.simulator.store.hosts.list(harness.simulator.credentials.tenantId)].map((host) => host.name).sort();
    expect(response.data!.hosts.nodes.map((node) => Object.keys(node))).toEqual([['uuid'], ['uuid']]);
    const named = await harness.gql<{ hosts: { nodes: { name: string }[] } }>(
      'query Q($named: Boolean! = true, $direction: OrderDirection! = DESC) { hosts(first: 2, orderBy: { field: NAME, direction: $direction }) { nodes { name @include(if: $named) } } }',
    );
    expect(named.data!.hosts.nodes.map((node) => node.name)).toEqual(names.reverse().slice(0, 2));
  });

  it('runs the operation the request names, every time, when the document holds several', async () => {
    const document = 'query Hosts { hosts(first: 1) { totalCount } } query Vms { vmInstances(first: 1) { totalCount } }';
    const answers = [];
    for (const operationName of ['Hosts', 'Vms', 'Hosts']) {
      const response = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...harness.headers },
        body: JSON.stringify({ query: document, operationName }),
      });
      answers.push(Object.keys(((await response.json()) as { data: Record<string, unknown> }).data));
    }
    expect(answers).toEqual([['hosts'], ['vmInstances'], ['hosts']]);
  });

  it("answers fields in the document's order, fragments included", async () => {
    const response = await harness.gql<{ hosts: { nodes: Record<string, unknown>[] } }>(
      'query { hosts(first: 1) { nodes { ... on Host { uuid } name ...Cpu state } } } fragment Cpu on Host { cpuNum }',
    );
    expect(Object.keys(response.data!.hosts.nodes[0]!)).toEqual(['uuid', 'name', 'cpuNum', 'state']);
  });

  it("gives a resolver's error the location of its field", async () => {
    const response = await harness.gql('query {\n  cbtTask(uuid: "0123456789abcdef0123456789abcdef") { uuid }\n}');
    expect(response.errors).toEqual([expect.objectContaining({ path: ['cbtTask'], locations: [{ line: 2, column: 3 }] })]);
  });

  describe('a subscription whose arguments are literals', () => {
    async function finishedJob(): Promise<string> {
      const { tenantId } = harness.simulator.credentials;
      const host = [...harness.simulator.store.hosts.list(tenantId)].find((candidate) => candidate.status === 'Connected')!;
      const response = await harness.gql<{ updateHostNqn: { job: { id: string } } }>(
        'mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { id } } }',
        { input: { uuid: host.uuid, nqn: 'nqn.2014-08.org.nvmexpress:uuid:00000042-0000-4000-8000-000000000000' } },
      );
      return response.data!.updateHostNqn.job.id;
    }

    it('delivers jobCompleted(id: "<literal>") over graphql-ws and SSE, as the docs example writes it', async () => {
      const id = await finishedJob();
      const query = `subscription { jobCompleted(id: "${id}") { id status } }`;
      const ws = await subscribeWs(harness.url, query, {}, { Authorization: harness.headers.authorization });
      const sse = await subscribeSse(harness.url, query, {}, { authorization: harness.headers.authorization });
      await Promise.all([ws.completed, sse.completed]);
      for (const subscription of [ws, sse]) expect(subscription.results).toEqual([{ data: { jobCompleted: { id, status: 'SUCCEEDED' } } }]);
      await Promise.all([ws.close(), sse.close()]);
    });

    it('names the unknown job written as a literal in its NOT_FOUND error', async () => {
      const unknown = '0123456789abcdef0123456789abcdef';
      const query = `subscription { jobCompleted(id: "${unknown}") { id } }`;
      const ws = await subscribeWs(harness.url, query, {}, { Authorization: harness.headers.authorization });
      const sse = await subscribeSse(harness.url, query, {}, { authorization: harness.headers.authorization });
      await Promise.all([ws.completed, sse.completed]);
      for (const subscription of [ws, sse]) {
        expect(subscription.results.map((result) => result.errors?.map((error) => [error.extensions?.code, error.message]))).toEqual([
          [['NOT_FOUND', `No job ${unknown} (unknown, or finished longer ago than the gateway keeps jobs).`]],
        ]);
      }
      await Promise.all([ws.close(), sse.close()]);
    });
  });
});
