/**
 * `npm run docs`: writes the reference pages of docs/ that are generated from the code (the
 * error codes, from `src/errors/codes.ts` and the `UserErrorCode` enum; the metrics, from the
 * registry of `src/observability/metrics.ts`). A test fails when a
 * committed page is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderGeneratedPages } from './docs-pages.js';

for (const { path, text } of renderGeneratedPages()) {
  const target = fileURLToPath(new URL(`../${path}`, import.meta.url));
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target}\n`);
}
