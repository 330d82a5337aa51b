/**
 * `deploy/kubernetes`: every object the kustomization deploys is validated against the
 * Kubernetes API's own schemas (`kubernetes-models`, generated from the API's OpenAPI document;
 * no cluster needed), has no field the API does not know, and holds the facts a rollout relies
 * on, checked against the gateway itself wherever they name one of its settings or routes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IService } from 'kubernetes-models/v1/Service';
import { loadConfig, type GatewayConfig } from '../../src/config/index.js';
import { parseRedisUrl } from '../../src/redis/url.js';
import { schema } from '../../src/schema/index.js';
import { loadTrustedManifest } from '../../src/trusted-documents/manifest.js';
import { startHarness, type Harness } from '../support/harness.js';
import { modelModule, only, quantity, readKustomization, typeErrors, type Manifest } from '../support/kustomize.js';

const kustomization = readKustomization();
const { manifests } = kustomization;
const deployment = only<IDeployment>(manifests, 'Deployment');
const pod = deployment.spec!.template.spec!;
const container: IContainer = pod.containers.find((candidate) => candidate.name === 'gateway')!;
const configMap = only<{ data: Record<string, string> }>(manifests, 'ConfigMap', 'infra-graphql-gateway');
const secret = only<{ metadata: { name: string }; stringData: Record<string, string> }>(manifests, 'Secret');

/** The container's environment as the kubelet builds it from the ConfigMap and the Secret (no other source is used). */
function containerEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, only<{ data: Record<string, string> }>(manifests, 'ConfigMap', source.configMapRef.name).data);
    else throw new Error('envFrom: only ConfigMaps are resolved here');
  }
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (ref && ref.name === secret.metadata.name && ref.key in secret.stringData) env[variable.name] = secret.stringData[ref.key]!;
    else if (!ref?.optional) throw new Error(`env ${variable.name}: no value this test can resolve`);
  }
  return env;
}

/** The configuration the pods start with, read by the gateway's own loader; and the variables it read. */
function podConfig(): { config: GatewayConfig; read: Set<string> } {
  const read = new Set<string>();
  const env = containerEnvironment();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return target[name as string];
    },
  });
  return { config: loadConfig(recording), read };
}

/** The port a container port name (or number) stands for. */
function containerPort(port: string | number | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

describe('the Kubernetes manifests', () => {
  it('deploys every YAML file of deploy/kubernetes through its kustomization', () => {
    expect([...kustomization.resources].sort()).toEqual([...kustomization.filesInDirectory].sort());
    expect(new Set(manifests.map((manifest) => manifest.kind))).toEqual(
      new Set(['ConfigMap', 'Secret', 'Deployment', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler']),
    );
    // The image override names the image the container runs.
    expect(kustomization.images.map((image) => image.name)).toEqual([container.image]);
  });

  it.each(manifests.map((manifest) => [`${manifest.kind} ${manifest.name} (${manifest.file})`, manifest] as const))(
    'validates %s against the Kubernetes API schema',
    async (_name, manifest: Manifest) => {
      const { [manifest.kind]: Model } = (await import(modelModule(manifest))) as Record<string, (new (data: unknown) => { validate(): void }) | undefined>;
      if (Model === undefined) throw new Error(`kubernetes-models has no ${manifest.apiVersion} ${manifest.kind}`);
      expect(() => new Model(manifest.object).validate()).not.toThrow();
    },
  );

  it('uses no field the Kubernetes API does not know', () => {
    expect(typeErrors(manifests)).toEqual([]);
  });

  it('configures the gateway with variables it reads and values it accepts, and ships no credential', () => {
    const { config, read } = podConfig();
    const env = containerEnvironment();
    // NODE_OPTIONS is Node's own.
    const unread = Object.keys(env).filter((name) => !read.has(name) && name !== 'NODE_OPTIONS');
    expect(unread, 'variables src/config/index.ts never reads').toEqual([]);
    expect(config.redisUrl).toBeDefined();
    expect(config.graphiql).toBe(false);
    // Credentials-free as shipped: a Redis URL without a password, no cursor key (agreed through Redis).
    expect(parseRedisUrl(secret.stringData.REDIS_URL!)).toMatchObject({ kind: 'single' });
    expect(new URL(secret.stringData.REDIS_URL!).password).toBe('');
    expect(secret.stringData.CURSOR_SECRET).toBe('');
    expect(config.cursorSecret).toBeUndefined();
    // Credentials go in the Secret, never in the ConfigMap.
    expect(Object.keys(configMap.data).filter((name) => /SECRET|PASSWORD|TOKEN|REDIS_URL/.test(name))).toEqual([]);
  });

  it('gives the pods longer to stop than the gateway takes to drain after its preStop pause', () => {
    const { config } = podConfig();
    const [command, seconds, ...rest] = container.lifecycle?.preStop?.exec?.command ?? [];
    expect([command, rest]).toEqual(['sleep', []]);
    const pause = Number(seconds);
    expect(pause).toBeGreaterThan(0);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(pause + config.shutdownTimeoutMs / 1000);
  });

  it('exposes the port the gateway listens on, to the probes and the Service', () => {
    const { config } = podConfig();
    const service = only<IService>(manifests, 'Service');
    expect(containerPort('http')).toBe(config.port);
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) expect(containerPort(probe?.httpGet?.port)).toBe(config.port);
    expect(service.spec!.ports!.map((port) => containerPort(port.targetPort))).toEqual([config.port]);
    expect(matches(service.spec!.selector, deployment.spec!.template.metadata!.labels)).toBe(true);
    const annotations = deployment.spec!.template.metadata!.annotations!;
    expect(Number(annotations['prometheus.io/port'])).toBe(config.port);
  });

  it('keeps at least one replica through voluntary disruptions, with more replicas than that', () => {
    const budget = only<IPodDisruptionBudget>(manifests, 'PodDisruptionBudget');
    const autoscaler = only<IHorizontalPodAutoscaler>(manifests, 'HorizontalPodAutoscaler');
    expect(budget.spec!.maxUnavailable).toBeUndefined();
    const minAvailable = Number(budget.spec!.minAvailable);
    expect(minAvailable).toBeGreaterThanOrEqual(1);
    expect(matches(budget.spec!.selector!.matchLabels, deployment.spec!.template.metadata!.labels)).toBe(true);
    // A drain can still evict one replica at a time.
    expect(deployment.spec!.replicas!).toBeGreaterThan(minAvailable);
    expect(autoscaler.spec!.minReplicas!).toBeGreaterThan(minAvailable);
    expect(deployment.spec!.strategy?.rollingUpdate?.maxUnavailable).toBe(0);
  });

  it('scales the Deployment on CPU, which the container requests', () => {
    const autoscaler = only<IHorizontalPodAutoscaler>(manifests, 'HorizontalPodAutoscaler');
    expect(autoscaler.spec!.scaleTargetRef).toEqual({ apiVersion: deployment.apiVersion, kind: 'Deployment', name: deployment.metadata!.name });
    expect(autoscaler.spec!.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } }]);
    expect(deployment.spec!.replicas).toBe(autoscaler.spec!.minReplicas);
    expect(autoscaler.spec!.maxReplicas).toBeGreaterThan(autoscaler.spec!.minReplicas!);
  });

  it('requests and limits CPU and memory, with V8\'s heap limit below the memory limit', () => {
    const { requests = {}, limits = {} } = container.resources ?? {};
    for (const resource of ['cpu', 'memory']) {
      expect(requests[resource], `requests.${resource}`).toBeDefined();
      expect(limits[resource], `limits.${resource}`).toBeDefined();
      expect(quantity(requests[resource]!)).toBeLessThanOrEqual(quantity(limits[resource]!));
    }
    const heapMiB = Number(/--max-old-space-size=(\d+)/.exec(containerEnvironment().NODE_OPTIONS ?? '')?.[1]);
    expect(heapMiB * 1024 ** 2).toBeLessThan(quantity(limits.memory!));
  });

  it('runs as the image\'s unprivileged user, with a read-only root and no capability', () => {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    // The official Node images' `node` user is uid 1000, gid 1000.
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 });
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(container.securityContext?.privileged).not.toBe(true);
    // The image's entrypoint (tini, which forwards SIGTERM and SIGHUP to Node) and command stay.
    expect(container.command).toBeUndefined();
    expect(container.args).toBeUndefined();
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it('mounts the trusted-document manifest from a ConfigMap where TRUSTED_DOCUMENTS points, and the gateway accepts it', () => {
    const { config } = podConfig();
    const path = config.trustedDocuments!;
    expect(path).toBeDefined();
    const mount = container.volumeMounts?.find((candidate) => path.startsWith(`${candidate.mountPath}/`));
    expect(mount, `no volume mounted above ${path}`).toBeDefined();
    expect(mount!.subPath).toBeUndefined(); // a subPath mount never sees the ConfigMap change
    const volume = pod.volumes?.find((candidate) => candidate.name === mount!.name);
    const documents = only<{ data: Record<string, string> }>(manifests, 'ConfigMap', volume?.configMap?.name);
    const key = posix.relative(mount!.mountPath, path);
    expect(Object.keys(documents.data)).toContain(key);

    const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
    try {
      writeFileSync(join(dir, key), documents.data[key]!);
      expect(loadTrustedManifest(join(dir, key), schema).size).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the probes, against a running gateway', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('are paths the gateway answers: liveness whatever the upstream, readiness only while the upstream answers', async () => {
    const liveness = container.livenessProbe!.httpGet!.path!;
    const readiness = container.readinessProbe!.httpGet!.path!;
    expect(container.startupProbe!.httpGet!.path).toBe(liveness);
    expect((await fetch(`${harness.url}${liveness}`)).status).toBe(200);
    expect((await fetch(`${harness.url}${readiness}`)).status).toBe(200);
    await harness.simulator.stop();
    // An upstream outage takes the replicas out of the Service, but restarts none.
    expect((await fetch(`${harness.url}${readiness}`)).status).toBe(503);
    expect((await fetch(`${harness.url}${liveness}`)).status).toBe(200);
  });
});
