/**
 * `npm run schema`: writes the SDL of the code-first schema to schema/schema.graphql.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from '../schema/index.js';

const target = fileURLToPath(new URL('../../schema/schema.graphql', import.meta.url));
writeFileSync(target, `${printSchema(schema)}\n`);
process.stdout.write(`wrote ${target}\n`);
