/**
 * Reads `deploy/kubernetes` as `kubectl apply -k` would, without kubectl or kustomize: the
 * kustomization's `resources:` (plain files, each one or more YAML documents) and its `images:`
 * transform. Any other kustomize feature makes it throw, so that a generator or a patch added
 * later is not silently left out of the tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';

export const KUSTOMIZATION_DIR = new URL('../../deploy/kubernetes/', import.meta.url).pathname;

/** The kustomization fields read here; any other one is an error. */
const UNDERSTOOD_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'images']);

/** A Kubernetes object as written, with the file it came from. */
export interface Manifest {
  readonly file: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly object: Record<string, unknown>;
}

interface ImageOverride {
  name: string;
  newName?: string;
  newTag?: string;
}

export interface Kustomization {
  /** The files `resources:` lists, in order. */
  readonly resources: readonly string[];
  /** Every YAML file of the directory besides `kustomization.yaml`. */
  readonly filesInDirectory: readonly string[];
  readonly images: readonly ImageOverride[];
  readonly manifests: readonly Manifest[];
}

export function readKustomization(dir = KUSTOMIZATION_DIR): Kustomization {
  const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Record<string, unknown>;
  const unknown = Object.keys(kustomization).filter((field) => !UNDERSTOOD_FIELDS.has(field));
  if (unknown.length > 0) throw new Error(`kustomization.yaml uses ${unknown.join(', ')}, which test/support/kustomize.ts does not resolve: teach it first`);
  const resources = (kustomization.resources ?? []) as string[];
  const manifests: Manifest[] = [];
  for (const file of resources) {
    if (!/^[\w.-]+\.ya?ml$/.test(file)) throw new Error(`resource ${file}: only files of this directory are resolved here`);
    for (const document of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}`);
      const object = document.toJS() as Record<string, unknown> | null;
      if (object === null) continue;
      const metadata = (object.metadata ?? {}) as { name?: string };
      manifests.push({ file, apiVersion: String(object.apiVersion), kind: String(object.kind), name: String(metadata.name), object });
    }
  }
  const filesInDirectory = readdirSync(dir).filter((file) => /\.ya?ml$/.test(file) && file !== 'kustomization.yaml');
  return { resources, filesInDirectory, images: (kustomization.images ?? []) as ImageOverride[], manifests };
}

/** The one manifest of `kind` (throws when there is none or more than one). */
export function only<T = Record<string, unknown>>(manifests: readonly Manifest[], kind: string, name?: string): T {
  const found = manifests.filter((manifest) => manifest.kind === kind && (name === undefined || manifest.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` named ${name}` : ''}, found ${found.length}`);
  return found[0]!.object as T;
}

/** `kubernetes-models`' module of an object: `apps/v1` + `Deployment` → `kubernetes-models/apps/v1/Deployment`. */
export function modelModule(manifest: Pick<Manifest, 'apiVersion' | 'kind'>): string {
  return `kubernetes-models/${manifest.apiVersion}/${manifest.kind}`;
}

/**
 * Fields the Kubernetes API does not know (a misspelt `readinesProbe`, a probe under the wrong
 * parent). The API's JSON schemas allow unknown fields, and the API server drops them with a
 * warning; `kubernetes-models`' TypeScript interfaces do not, so each object is type-checked
 * as an object literal of its kind's interface, whose excess-property check names them.
 */
export function typeErrors(manifests: readonly Manifest[]): string[] {
  const fileName = join(KUSTOMIZATION_DIR, '__manifests__.ts');
  const source = manifests
    .map((manifest, index) => `import type { I${manifest.kind} as T${index} } from '${modelModule(manifest)}';\nexport const m${index}: T${index} = ${JSON.stringify(manifest.object)};`)
    .join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => (name === fileName ? ts.createSourceFile(name, source, language) : getSourceFile.call(host, name, language, ...rest));
  host.fileExists = (name) => name === fileName || fileExists.call(host, name);
  host.readFile = (name) => (name === fileName ? source : readFile.call(host, name));
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file?.fileName !== fileName || diagnostic.start === undefined) return message;
    const line = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line;
    const manifest = manifests[Math.floor(line / 2)];
    return `${manifest?.file} (${manifest?.kind} ${manifest?.name}): ${message}`;
  });
}

/** A Kubernetes quantity in base units: cores for CPU (`500m` → 0.5), bytes for memory (`320Mi`). */
export function quantity(value: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(m|k|Ki|M|Mi|G|Gi)?$/.exec(String(value));
  if (!match) throw new Error(`not a quantity this test reads: ${value}`);
  const units: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, Ki: 1024, M: 1e6, Mi: 1024 ** 2, G: 1e9, Gi: 1024 ** 3 };
  return Number(match[1]) * units[match[2] ?? '']!;
}
