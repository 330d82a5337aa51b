/**
 * `npm run schema`: writes the SDL the gateway serves: `schema/schema.graphql` (the newest
 * upstream release, with the endpoint's `@defer` and `@stream`), `schema/subgraph.graphql` (the
 * same schema as a Federation v2 subgraph, with its `@link` and `@key`s, as `_service { sdl }`
 * answers it), and `schema/releases/<release>.graphql` for each published older release (what
 * `UPSTREAM_VERSION=<release>` serves). A file of a release no longer published is removed.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printSdlFiles, RELEASES_DIR } from './sdl-files.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const files = printSdlFiles();
mkdirSync(join(root, RELEASES_DIR), { recursive: true });
for (const { file, sdl } of files) {
  writeFileSync(join(root, file), sdl);
  process.stdout.write(`wrote ${file}\n`);
}
const written = new Set(files.map(({ file }) => file));
for (const name of readdirSync(join(root, RELEASES_DIR))) {
  const file = `${RELEASES_DIR}/${name}`;
  if (written.has(file)) continue;
  rmSync(join(root, file));
  process.stdout.write(`removed ${file} (its release is no longer published)\n`);
}
