/**
 * `useReleaseValidation` alone in a yoga serving an older release's schema, called through
 * `yoga.fetch`: a query for what that release lacks is refused naming the release that brought
 * it, while a field no release has keeps graphql-js' own error.
 */
import { createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useReleaseValidation } from '../../../src/plugins/validation/use-release-validation.js';
import { schema } from '../../../src/schema/index.js';
import { schemaForRelease } from '../../../src/schema/releases.js';

const RELEASE = '4.7.0';
const yoga = createYoga({
  schema: schemaForRelease(schema, RELEASE),
  logging: false,
  plugins: [useReleaseValidation({ fullSchema: schema, upstreamVersion: RELEASE })],
});

async function errorsOf(query: string): Promise<{ message: string; extensions?: Record<string, unknown> }[]> {
  const response = await yoga.fetch('http://gateway/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return ((await response.json()) as { errors?: { message: string; extensions?: Record<string, unknown> }[] }).errors ?? [];
}

describe('useReleaseValidation', () => {
  it('refuses a field of a newer release with NOT_IN_UPSTREAM_RELEASE, naming the field and its release, and nothing else', async () => {
    const errors = await errorsOf('{ hosts(first: 2) { nodes { name nqn } } }');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toBe(`Field "Host.nqn" is not available: it came with upstream release 4.10.6, and this gateway serves release ${RELEASE} (UPSTREAM_VERSION).`);
    expect(errors[0]!.extensions).toMatchObject({ code: 'NOT_IN_UPSTREAM_RELEASE', coordinate: 'Host.nqn', since: '4.10.6', upstreamVersion: RELEASE });
  });

  it('leaves a field no release has to graphql-js: "Cannot query field"', async () => {
    const errors = await errorsOf('{ hosts(first: 1) { nodes { noSuchField } } }');
    expect(errors[0]?.message).toMatch(/^Cannot query field "noSuchField" on type "Host"/);
    expect(errors[0]?.extensions?.code).not.toBe('NOT_IN_UPSTREAM_RELEASE');
  });
});
