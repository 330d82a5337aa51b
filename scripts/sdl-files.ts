/**
 * The SDL files the repository commits, each with the text the code prints for it: the newest
 * release's standalone schema (`schema/schema.graphql`), its Federation v2 subgraph
 * (`schema/subgraph.graphql`), and one standalone schema per published older release
 * (`schema/releases/<release>.graphql`). `npm run schema` writes them; the staleness test and the
 * breaking-change guard compare the committed files with them.
 */
import { printSubgraphSchema } from '@apollo/subgraph';
import { printSchema } from 'graphql';
import { buildSchema } from '../src/schema/index.js';
import { PUBLISHED_RELEASES, servedSchema } from '../src/schema/served.js';

/** The folder of the older releases' SDL files, relative to the repository root. */
export const RELEASES_DIR = 'schema/releases';

/** One committed SDL file: where it lives (relative to the repository root), and its text as the code prints it. */
export interface SdlFile {
  readonly file: string;
  /** The upstream release the file shows; `undefined` for the newest. */
  readonly release: string | undefined;
  readonly sdl: string;
}

/** The file of a published older release. */
export function releaseSdlFile(release: string): string {
  return `${RELEASES_DIR}/${release}.graphql`;
}

/** The newest release's standalone SDL as the code builds it: what `schema/schema.graphql` must hold. */
export function printServedSdl(release?: string): string {
  return `${printSchema(servedSchema(release))}\n`;
}

/** Every committed SDL file, printed from the code. */
export function printSdlFiles(): SdlFile[] {
  return [
    { file: 'schema/schema.graphql', release: undefined, sdl: printServedSdl() },
    { file: 'schema/subgraph.graphql', release: undefined, sdl: `${printSubgraphSchema(buildSchema({ subgraph: true }))}\n` },
    ...PUBLISHED_RELEASES.map((release) => ({ file: releaseSdlFile(release), release, sdl: printServedSdl(release) })),
  ];
}
