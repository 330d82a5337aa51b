/**
 * How deep a request's `variables` and `extensions` may nest, checked the same way over HTTP
 * (`useRequestValidation`) and graphql-ws (the WebSocket bridge). `JSON.parse` takes any depth,
 * but what reads them afterwards recurses, and a deep enough value overflows the stack there.
 */

/** Deepest nesting of objects and lists in `variables` and `extensions`, over HTTP and graphql-ws. */
export const MAX_JSON_DEPTH = 32;

/** The parameters of a GraphQL request that hold JSON objects. */
export const OBJECT_PARAMS = ['variables', 'extensions'] as const;

/** What is wrong with a request's `variables` or `extensions` nested deeper than `max`, or null. */
export function tooDeeplyNested(params: { readonly variables?: unknown; readonly extensions?: unknown }, max = MAX_JSON_DEPTH): string | null {
  for (const name of OBJECT_PARAMS) {
    if (nestsDeeperThan(params[name], max)) return `"${name}" is nested deeper than ${max} levels.`;
  }
  return null;
}

/** Whether `value` holds objects or lists more than `max` levels deep; without recursion, which is what a deep value breaks. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}
