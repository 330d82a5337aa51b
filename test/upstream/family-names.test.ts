/**
 * The upstream has two API families, and the code calls them by the two names `CredentialFamily`
 * uses: the resource family (`svc/v1/...`) and the cursor family (`/api/v1/resources/...`). An
 * identifier named after a path (`routeSvc`), the cursor family's URL segment (`authenticateResources`)
 * or an operation kind (`queryFamily`) once named the same family differently in different files.
 * Strings and comments may quote the paths and the fixed public names; identifiers may not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);

/**
 * An identifier that names a family by anything but its two names: `svc` anywhere, `Resources` as a
 * word of a camel-case name (`ResourceState` and a Kubernetes manifest's `resources` are no family).
 */
const OTHER_FAMILY_NAME = /svc|Svc|SVC|(^|[a-z])Resources(?![a-z])|^resources[A-Z]|RESOURCES_|queryFamily|genericFamily/;

/** Identifiers that libraries own (OpenTelemetry's resource detection is no upstream family). */
const LIBRARY_NAMES = new Set(['detectResources']);

function sourceFiles(folder: string): string[] {
  return readdirSync(new URL(`${folder}/`, ROOT), { recursive: true, encoding: 'utf8' })
    .map((path) => `${folder}/${path.split('\\').join('/')}`)
    .filter((path) => path.endsWith('.ts') && !path.includes('/artifacts/'));
}

function identifiers(text: string): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) names.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('scanned.ts', text, ts.ScriptTarget.Latest, false));
  return names;
}

function otherFamilyNames(files: readonly string[]): string[] {
  return files.flatMap((file) =>
    identifiers(readFileSync(new URL(file, ROOT), 'utf8'))
      .filter((name) => OTHER_FAMILY_NAME.test(name) && !LIBRARY_NAMES.has(name))
      .map((name) => `${file}: ${name}`),
  );
}

describe('the two upstream families', () => {
  it('are named the resource and the cursor family by every identifier of src, test, bench and scripts', () => {
    const files = ['src', 'test', 'bench', 'scripts'].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(200);
    expect([...new Set(otherFamilyNames(files))]).toEqual([]);
  });

  it('the scan finds an identifier that names a family by its path', () => {
    expect(identifiers('function routeSvc(path: string) { return "svc/v1/" + path; } // svc')).toContain('routeSvc');
    expect(identifiers('const label = "authenticateResources"; // authenticateResources')).not.toContain('authenticateResources');
    expect(OTHER_FAMILY_NAME.test('authenticateResources') && OTHER_FAMILY_NAME.test('queryFamily')).toBe(true);
  });
});
