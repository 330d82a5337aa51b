/**
 * Renders `deploy/kubernetes` (and overlays and components of it) as `kubectl apply -k` would:
 * with kubectl's built-in kustomize (`kubectl kustomize`), so generators, hash suffixes,
 * components and patches are the real thing. kubectl is required: where it is missing the tests
 * fail with the install instructions rather than skip.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';

export const DEPLOY_DIR = new URL('../../deploy/', import.meta.url).pathname;
export const KUSTOMIZATION_DIR = join(DEPLOY_DIR, 'kubernetes');
export const COMPONENTS_DIR = join(KUSTOMIZATION_DIR, 'components');
export const EXAMPLE_OVERLAY_DIR = join(DEPLOY_DIR, 'overlays', 'example');

/** A Kubernetes object as rendered. */
export interface Manifest {
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
  /** The entries of `resources:`, in order. */
  readonly resources: readonly string[];
  /** The env files of `configMapGenerator:`. */
  readonly generatorFiles: readonly string[];
  /** Every YAML and env file of the directory besides `kustomization.yaml`. */
  readonly filesInDirectory: readonly string[];
  readonly images: readonly ImageOverride[];
  /** What `kubectl kustomize` renders. */
  readonly manifests: readonly Manifest[];
}

/** Fails with the install instructions when kubectl is not on the PATH. */
export function requireKubectl(): void {
  if (spawnSync('sh', ['-c', 'command -v kubectl'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('kubectl is not installed, and the Kubernetes manifests are rendered with its built-in kustomize. Install it: https://kubernetes.io/docs/tasks/tools/ (Debian: the kubectl package of pkgs.k8s.io)');
  }
}

/** `kubectl kustomize dir`, as objects; throws with kustomize's message when it fails. */
export function render(dir: string): Manifest[] {
  requireKubectl();
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${result.stderr}`);
  const manifests: Manifest[] = [];
  for (const document of parseAllDocuments(result.stdout)) {
    if (document.errors.length > 0) throw new Error(`kubectl kustomize ${dir}: ${document.errors.map((error) => error.message).join('; ')}`);
    const object = document.toJS() as Record<string, unknown> | null;
    if (object === null) continue;
    const metadata = (object.metadata ?? {}) as { name?: string };
    manifests.push({ apiVersion: String(object.apiVersion), kind: String(object.kind), name: String(metadata.name), object });
  }
  return manifests;
}

export function readKustomization(dir = KUSTOMIZATION_DIR): Kustomization {
  const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as {
    resources?: string[];
    configMapGenerator?: { envs?: string[]; files?: string[] }[];
    images?: ImageOverride[];
  };
  const generatorFiles = (kustomization.configMapGenerator ?? []).flatMap((generator) => [...(generator.envs ?? []), ...(generator.files ?? [])]);
  const filesInDirectory = readdirSync(dir).filter((file) => /\.(ya?ml|env)$/.test(file) && file !== 'kustomization.yaml');
  return { resources: kustomization.resources ?? [], generatorFiles, filesInDirectory, images: kustomization.images ?? [], manifests: render(dir) };
}

/** The components of `deploy/kubernetes/components`, by directory name. */
export function componentNames(): string[] {
  return readdirSync(COMPONENTS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The base with the given components, rendered through a throwaway overlay. */
export function renderWithComponents(components: readonly string[]): Manifest[] {
  const dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
  try {
    const path = (target: string): string => relative(dir, target);
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'resources:',
        `  - ${path(KUSTOMIZATION_DIR)}`,
        'components:',
        ...components.map((component) => `  - ${path(join(COMPONENTS_DIR, component))}`),
      ].join('\n'),
    );
    return render(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The example overlay (`deploy/overlays/example`) rendered as an operator would after copying its
 * `secret.env.example` to `secret.env` (ignored by git, so absent here): on a copy of `deploy/`.
 */
export function renderExampleOverlay(): { manifests: Manifest[]; secretEnv: string } {
  const dir = mkdtempSync(join(tmpdir(), 'deploy-'));
  try {
    cpSync(DEPLOY_DIR, dir, { recursive: true });
    const overlay = join(dir, relative(DEPLOY_DIR, EXAMPLE_OVERLAY_DIR));
    const secretEnv = readFileSync(join(overlay, 'secret.env.example'), 'utf8');
    writeFileSync(join(overlay, 'secret.env'), secretEnv);
    return { manifests: render(overlay), secretEnv };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
    return `${manifest?.kind} ${manifest?.name}: ${message}`;
  });
}

/** A Kubernetes quantity in base units: cores for CPU (`500m` → 0.5), bytes for memory (`320Mi`). */
export function quantity(value: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(m|k|Ki|M|Mi|G|Gi)?$/.exec(String(value));
  if (!match) throw new Error(`not a quantity this test reads: ${value}`);
  const units: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, Ki: 1024, M: 1e6, Mi: 1024 ** 2, G: 1e9, Gi: 1024 ** 3 };
  return Number(match[1]) * units[match[2] ?? '']!;
}
