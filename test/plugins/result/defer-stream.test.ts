import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/harness.js';

describe('useDeferStream', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ simulator: { vms: 60, hosts: 6 } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  describe('@defer', () => {
    it('delivers the slow host fields as an incremental payload after the first one', async () => {
      const response = await fetch(`${harness.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'multipart/mixed', ...harness.headers },
        body: JSON.stringify({
          query: '{ hosts(first: 1) { nodes { uuid name ... @defer(label: "slow") { sensors blockDevices } } } }',
        }),
      });
      expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
      const parts = parseMultipart(await response.text());
      expect(parts.length).toBeGreaterThanOrEqual(2);
      const [initial, ...rest] = parts as [Record<string, unknown>, ...Record<string, unknown>[]];
      expect(initial).toMatchObject({ hasNext: true });
      const host = (initial.data as { hosts: { nodes: Record<string, unknown>[] } }).hosts.nodes[0]!;
      expect(host.name).toEqual(expect.any(String));
      expect(host).not.toHaveProperty('sensors');
      const incremental = rest.flatMap((part) => (part.incremental as { label?: string; data: Record<string, unknown> }[] | undefined) ?? []);
      expect(incremental[0]).toMatchObject({ label: 'slow', data: { sensors: expect.any(Array), blockDevices: expect.any(Array) } });
      expect(rest.at(-1)).toMatchObject({ hasNext: false });
    });
  });
});

/** The JSON parts of a `multipart/mixed` answer. */
function parseMultipart(text: string): unknown[] {
  return text
    .split(/\r?\n---/)
    .map((part) => part.slice(part.indexOf('{')).trim())
    .filter((part) => part.startsWith('{'))
    .map((part) => JSON.parse(part.slice(0, part.lastIndexOf('}') + 1)) as unknown);
}
