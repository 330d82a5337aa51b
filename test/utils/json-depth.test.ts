/**
 * The depth check of `variables` and `extensions` that HTTP and graphql-ws share: too deep a value
 * is named, and even a value deep enough to overflow a recursive reader is measured without one.
 */
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, tooDeeplyNested } from '../../src/utils/json-depth.js';

/** `depth` levels of nested lists, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
}

describe('tooDeeplyNested', () => {
  it('accepts variables and extensions nested up to the limit', () => {
    expect(tooDeeplyNested({ variables: { input: nested(MAX_JSON_DEPTH - 1) }, extensions: nested(MAX_JSON_DEPTH) })).toBeNull();
  });

  it('names the parameter nested deeper than the limit', () => {
    expect(tooDeeplyNested({ variables: { a: 1 }, extensions: nested(MAX_JSON_DEPTH + 1) })).toBe(`"extensions" is nested deeper than ${MAX_JSON_DEPTH} levels.`);
    expect(tooDeeplyNested({ variables: { input: nested(3) } }, 3)).toBe('"variables" is nested deeper than 3 levels.');
  });

  it('measures a value nested a hundred thousand levels without overflowing the stack', () => {
    expect(tooDeeplyNested({ variables: nested(100_000) })).toBe(`"variables" is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  });
});
