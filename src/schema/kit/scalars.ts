/**
 * The four custom scalars (docs/features/schema-and-pagination.md). Bad input is rejected while the operation is
 * validated, so no upstream request is ever made for it.
 */
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { builder } from '../../builder.js';
import { normalizeUuid } from './uuid.js';

/**
 * A refused value. A literal's error names its node: validation reports a scalar's own
 * `GraphQLError` as it is, so without the node its place in the document would be lost.
 */
function badInput(message: string, node?: ValueNode): GraphQLError {
  return new GraphQLError(message, { nodes: node ?? null, extensions: { code: 'BAD_USER_INPUT' } });
}

/** A bad value as an error message shows it: a string's first 40 characters, the kind of a list or object (whatever its size or depth). */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' && value !== null ? 'an object' : String(value);
}

const UUID_FORMS = '32 hexadecimal digits, or the hyphenated 8-4-4-4-12 form';

function parseUuid(value: unknown, node?: ValueNode): string {
  const uuid = normalizeUuid(value);
  if (uuid === null) throw badInput(`Uuid must be ${UUID_FORMS}, got ${shown(value)}.`, node);
  return uuid;
}

builder.scalarType('Uuid', {
  description:
    'A resource identifier of the upstream service: a UUID\'s 128 bits. Answered as 32 lowercase hexadecimal digits without hyphens, the upstream\'s spelling, e.g. `3f2a6c1e9b0d4e7f8a5b6c7d8e9f0a1b`. Taken in that spelling or in RFC 9562\'s hyphenated form (`3f2a6c1e-9b0d-4e7f-8a5b-6c7d8e9f0a1b`), in either case: the gateway turns it into the 32 lowercase digits before using it.',
  // RFC 9562 names both spellings: the hyphenated one is its string form, the digits alone its hex form.
  specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc9562',
  serialize: (value) => value,
  parseValue: parseUuid,
  parseLiteral: (node: ValueNode) => {
    if (node.kind !== Kind.STRING) throw badInput(`Uuid must be a string of ${UUID_FORMS}.`, node);
    return parseUuid(node.value, node);
  },
});

builder.addScalarType('DateTime', DateTimeResolver, {
  description:
    'An instant in ISO 8601 (RFC 3339) at UTC, e.g. `2024-01-05T15:04:05.000Z`; converted from the upstream\'s `<Mon> <d>, <yyyy> <h:mm:ss> <AM|PM>` text.',
  specifiedByURL: 'https://scalars.graphql.org/andimarek/date-time',
});

function parseLong(value: unknown, node?: ValueNode): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw badInput(`Long must be a whole number from -(2^53-1) to 2^53-1, got ${shown(value)}.`, node);
  }
  return value;
}

builder.scalarType('Long', {
  description:
    'A 64-bit whole number: a count or a size (each field says its unit: bytes, MHz, Mbit/s, MB/s). Written as a JSON number, exact up to 2^53-1 (the interoperable range of RFC 8259, section 6), which covers every value the service reports.',
  specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc8259#section-6',
  serialize: (value) => {
    if (!Number.isFinite(value)) throw new GraphQLError(`Long cannot represent ${String(value)}.`);
    return Math.trunc(value);
  },
  parseValue: parseLong,
  parseLiteral: (node: ValueNode) => {
    if (node.kind !== Kind.INT) throw badInput('Long must be an integer literal.', node);
    return parseLong(Number(node.value), node);
  },
});

builder.addScalarType('JSON', JSONResolver, {
  description: 'Arbitrary JSON, used only where the spec leaves a structure unshown.',
});
