/**
 * The spec's path templates (`hosts/{uuid}/get-sensors`), compiled once to a pattern that
 * matches a path below `svc/v1/` and captures each `{name}` segment, for reads and writes alike.
 */

export interface PathTemplate {
  template: string;
  /** Matches a whole path; group `i + 1` captures `names[i]`, still percent-encoded. */
  pattern: RegExp;
  names: string[];
  /** Segments that are not parameters: the more, the more specific the template. */
  fixedSegments: number;
}

export function compilePathTemplate(template: string): PathTemplate {
  const names: string[] = [];
  const segments = template.split('/');
  const source = segments
    .map((segment) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (name === undefined) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/]+)';
    })
    .join('/');
  return { template, pattern: new RegExp(`^${source}$`), names, fixedSegments: segments.length - names.length };
}

/** The parameters a match captured, by name, each decoded by `decode`. */
export function pathParameters(path: PathTemplate, match: RegExpExecArray, decode: (segment: string) => string): Record<string, string> {
  const params: Record<string, string> = {};
  path.names.forEach((name, index) => {
    params[name] = decode(match[index + 1] ?? '');
  });
  return params;
}
