/**
 * `npm run docs:config`: writes the configuration reference (docs/reference/configuration.md)
 * from the settings table of src/config/index.ts.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_REFERENCE_PATH, renderConfigReference } from '../src/config/reference.js';

const target = fileURLToPath(new URL(`../${CONFIG_REFERENCE_PATH}`, import.meta.url));
writeFileSync(target, renderConfigReference());
process.stdout.write(`wrote ${target}\n`);
