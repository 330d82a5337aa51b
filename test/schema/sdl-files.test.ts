/**
 * The committed SDL files are the schema the gateway serves: each is what `npm run schema` prints
 * from the code now (`schema/schema.graphql`, `schema/subgraph.graphql`, and
 * `schema/releases/<release>.graphql` for every published older release, no other), and a running
 * gateway introspects to the file of the release it serves, with the directives its endpoint adds
 * (`@defer`, `@stream`) and `@live`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printSdlFiles, RELEASES_DIR, releaseSdlFile } from '../../scripts/sdl-files.js';
import { PUBLISHED_RELEASES } from '../../src/schema/served.js';
import { compareReleases, NEWEST_RELEASE } from '../../src/upstream/releases.js';
import { startHarness, type Harness } from '../support/harness.js';

const readCommitted = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('the committed SDL files', () => {
  const files = printSdlFiles();

  it.each(files.map(({ file, sdl }) => ({ file, sdl })))('keeps $file as the code prints it (run `npm run schema`)', ({ file, sdl }) => {
    expect(readCommitted(file)).toBe(sdl);
  });

  it('publishes one file per published older release and no other, each older than the newest', () => {
    const committed = readdirSync(new URL(`../../${RELEASES_DIR}/`, import.meta.url)).sort();
    expect(committed).toEqual(PUBLISHED_RELEASES.map((release) => releaseSdlFile(release).slice(RELEASES_DIR.length + 1)).sort());
    for (const release of PUBLISHED_RELEASES) expect(compareReleases(release, NEWEST_RELEASE), release).toBeLessThan(0);
  });

  it('declares the directives the endpoint serves, so an IDE accepts @defer, @stream and @live', () => {
    for (const { file, sdl } of files.filter(({ file }) => file !== 'schema/subgraph.graphql')) {
      for (const directive of ['directive @defer(', 'directive @stream(', 'directive @live(']) expect(sdl, file).toContain(directive);
    }
  });
});

/** What a client's IDE or codegen gets by introspecting the gateway at `url`, as SDL. */
async function introspectedSdl(harness: Harness): Promise<string> {
  const answer = await harness.gql<IntrospectionQuery>(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true, oneOf: true }));
  expect(answer.errors).toBeUndefined();
  return `${printSchema(buildClientSchema(answer.data as IntrospectionQuery))}\n`;
}

describe.each([
  { served: `the newest release (UPSTREAM_VERSION unset)`, upstreamVersion: undefined, file: 'schema/schema.graphql' },
  { served: 'UPSTREAM_VERSION=4.7.0', upstreamVersion: '4.7.0', file: releaseSdlFile('4.7.0') },
])('a gateway serving $served', ({ upstreamVersion, file }) => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ config: { upstreamVersion } });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it(`introspects to ${file}`, async () => {
    expect(await introspectedSdl(harness)).toBe(readCommitted(file));
  });
});
