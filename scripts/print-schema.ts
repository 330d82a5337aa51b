/**
 * `npm run schema`: writes the SDL of the code-first schema to schema/schema.graphql, and of the
 * same schema as a Federation v2 subgraph (with its `@link` and `@key`s, as `_service { sdl }`
 * answers it) to schema/subgraph.graphql.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSubgraphSchema } from '@apollo/subgraph';
import { printSchema } from 'graphql';
import { buildSchema, schema } from '../src/schema/index.js';

const targets = [
  { file: '../schema/schema.graphql', sdl: printSchema(schema) },
  { file: '../schema/subgraph.graphql', sdl: printSubgraphSchema(buildSchema({ subgraph: true })) },
];
for (const { file, sdl } of targets) {
  const target = fileURLToPath(new URL(file, import.meta.url));
  writeFileSync(target, `${sdl}\n`);
  process.stdout.write(`wrote ${target}\n`);
}
