/**
 * `deploy/kubernetes`: rendered by kubectl's built-in kustomize as `kubectl apply -k` renders it,
 * every object is validated against the Kubernetes API's own schemas (`kubernetes-models`,
 * generated from the API's OpenAPI document; no cluster needed), has no field the API does not
 * know, and holds the facts a rollout relies on, checked against the gateway itself wherever
 * they name one of its settings or routes. The optional components and the example overlay are
 * rendered and checked the same way; the Prometheus Operator's objects, which those schemas do
 * not cover, are checked for the fields the operator reads.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IService } from 'kubernetes-models/v1/Service';
import { SUBGRAPH_PATH } from '../../src/app.js';
import { loadConfig, type GatewayConfig } from '../../src/config/index.js';
import { WEBHOOK_PATH } from '../../src/jobs/manager.js';
import { parseRedisUrl } from '../../src/redis/url.js';
import { schema } from '../../src/schema/index.js';
import { loadTrustedManifest } from '../../src/trusted-documents/manifest.js';
import { ALERTS_PATH, PROMETHEUS_RULE_PATH, renderPrometheusRule } from '../../scripts/prometheus-rule.js';
import { startHarness, type Harness } from '../support/harness.js';
import {
  componentNames,
  EXAMPLE_OVERLAY_DIR,
  KUSTOMIZATION_DIR,
  modelModule,
  only,
  quantity,
  readKustomization,
  render,
  renderExampleOverlay,
  renderWithComponents,
  typeErrors,
  type Manifest,
} from '../support/kustomize.js';

const DOCS = new URL('../../docs/operations/kubernetes.md', import.meta.url).pathname;
/** The name of the Secret the operator creates, as the docs and the Deployment name it. */
const SECRET_NAME = 'infra-graphql-gateway';

const kustomization = readKustomization();
const { manifests } = kustomization;
const deployment = only<IDeployment>(manifests, 'Deployment');
const pod = deployment.spec!.template.spec!;
const podLabels = deployment.spec!.template.metadata!.labels!;
const container: IContainer = pod.containers.find((candidate) => candidate.name === 'gateway')!;
/** The Secret's keys as the example overlay's `secret.env.example` gives them (the base ships none). */
const exampleSecret = parseEnv(readFileSync(join(EXAMPLE_OVERLAY_DIR, 'secret.env.example'), 'utf8'));

/** The ConfigMap the container's environment comes from (its name carries kustomize's hash). */
function settingsConfigMap(objects: readonly Manifest[] = manifests, template = pod): { metadata: { name: string }; data: Record<string, string> } {
  const [source, ...others] = template.containers.find((candidate) => candidate.name === 'gateway')!.envFrom ?? [];
  if (!source?.configMapRef || others.length > 0) throw new Error('envFrom: one ConfigMap expected');
  return only(objects, 'ConfigMap', source.configMapRef.name);
}

/** The container's environment as the kubelet builds it from the ConfigMap and the Secret the operator creates (as the example's). */
function containerEnvironment(): Record<string, string> {
  const env: Record<string, string> = { ...settingsConfigMap().data };
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (ref?.name === SECRET_NAME && exampleSecret[ref.key] !== undefined) env[variable.name] = exampleSecret[ref.key]!;
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

/** The port /metrics is served on: METRICS_PORT of the settings. */
function metricsPort(): number {
  return Number(settingsConfigMap().data.METRICS_PORT);
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

/** Validates core objects against kubernetes-models' schema; the name of each one it has no model for. */
async function validateAll(objects: readonly Manifest[]): Promise<string[]> {
  const unmodelled: string[] = [];
  for (const manifest of objects) {
    if (manifest.apiVersion.startsWith('monitoring.coreos.com/')) {
      unmodelled.push(`${manifest.kind} ${manifest.name}`);
      continue;
    }
    const { [manifest.kind]: Model } = (await import(modelModule(manifest))) as Record<string, (new (data: unknown) => { validate(): void }) | undefined>;
    if (Model === undefined) throw new Error(`kubernetes-models has no ${manifest.apiVersion} ${manifest.kind}`);
    expect(() => new Model(manifest.object).validate(), `${manifest.kind} ${manifest.name}`).not.toThrow();
  }
  expect(typeErrors(objects.filter((manifest) => !manifest.apiVersion.startsWith('monitoring.coreos.com/')))).toEqual([]);
  return unmodelled;
}

/** The alerting rules' groups, as deploy/prometheus/alerts.yml holds them. */
const alertGroups = (parse(readFileSync(ALERTS_PATH, 'utf8')) as { groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[] }).groups;

describe('the Kubernetes manifests', () => {
  it('render every file of deploy/kubernetes through its kustomization, and ship no Secret', () => {
    expect([...kustomization.resources, ...kustomization.generatorFiles].sort()).toEqual([...kustomization.filesInDirectory].sort());
    expect(new Set(manifests.map((manifest) => manifest.kind))).toEqual(new Set(['ConfigMap', 'Deployment', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler']));
    // An apply of the base never overwrites the credentials the operator created.
    expect(manifests.filter((manifest) => manifest.kind === 'Secret')).toEqual([]);
    // The image override names the image the container runs.
    expect(kustomization.images.map((image) => image.name)).toEqual(['infra-graphql-gateway']);
    expect(container.image).toBe(`${kustomization.images[0]!.newName}:${kustomization.images[0]!.newTag}`);
  });

  it.each(manifests.map((manifest) => [`${manifest.kind} ${manifest.name}`, manifest] as const))(
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

  it('configures the gateway with variables it reads and values it accepts, credentials only from the Secret the operator creates', () => {
    const { config, read } = podConfig();
    const env = containerEnvironment();
    // NODE_OPTIONS is Node's own.
    const unread = Object.keys(env).filter((name) => !read.has(name) && name !== 'NODE_OPTIONS');
    expect(unread, 'variables src/config/ never reads').toEqual([]);
    expect(config.redisUrl).toBeDefined();
    expect(parseRedisUrl(config.redisUrl!)).toMatchObject({ kind: 'single' });
    expect(config.graphiql).toBe(false);
    // The Secret's keys: REDIS_URL required (a pod without it would run without Redis), CURSOR_SECRET optional.
    const fromSecret = Object.fromEntries(
      (container.env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [[variable.name, variable.valueFrom.secretKeyRef]] : [])),
    );
    expect(Object.keys(fromSecret).sort()).toEqual(['CURSOR_SECRET', 'REDIS_URL']);
    for (const [name, ref] of Object.entries(fromSecret)) expect(ref, name).toMatchObject({ name: SECRET_NAME, key: name });
    expect(fromSecret.REDIS_URL!.optional).not.toBe(true);
    expect(Object.keys(exampleSecret).sort()).toEqual(['CURSOR_SECRET', 'REDIS_URL']);
    // Credentials go in the Secret, never in the ConfigMap.
    expect(Object.keys(settingsConfigMap().data).filter((name) => /SECRET|PASSWORD|TOKEN|REDIS_URL/.test(name))).toEqual([]);
  });

  it('documents the kubectl create secret line for the Secret the Deployment reads, with each of its keys', () => {
    const docs = readFileSync(DOCS, 'utf8');
    const command = /kubectl (?:-n \S+ )?create secret generic (\S+) \\\n((?:\s+--from-literal=.*\n)+)/.exec(docs);
    expect(command, 'docs/operations/kubernetes.md shows `kubectl create secret generic ...`').not.toBeNull();
    expect(command![1]).toBe(SECRET_NAME);
    const keys = [...command![2]!.matchAll(/--from-literal=(\w+)=/g)].map((match) => match[1]);
    expect(keys.sort()).toEqual(['CURSOR_SECRET', 'REDIS_URL']);
  });

  it('leaves the replica count to the autoscaler: no spec.replicas on the Deployment it scales', () => {
    const autoscaler = only<IHorizontalPodAutoscaler>(manifests, 'HorizontalPodAutoscaler');
    expect(autoscaler.spec!.scaleTargetRef).toEqual({ apiVersion: deployment.apiVersion, kind: 'Deployment', name: deployment.metadata!.name });
    expect(deployment.spec).not.toHaveProperty('replicas');
  });

  it('rolls the pods when a setting changes: the ConfigMap is named after a hash of its content', () => {
    const name = settingsConfigMap().metadata.name;
    expect(name).toMatch(/^infra-graphql-gateway-[a-z0-9]{10}$/);
    // The same base with one setting changed: a new ConfigMap name, so a new pod template.
    const dir = mkdtempSync(join(tmpdir(), 'kustomization-'));
    try {
      cpSync(KUSTOMIZATION_DIR, dir, { recursive: true });
      const env = readFileSync(join(dir, 'gateway.env'), 'utf8');
      expect(env).toMatch(/^LOG_LEVEL=info$/m);
      writeFileSync(join(dir, 'gateway.env'), env.replace(/^LOG_LEVEL=info$/m, 'LOG_LEVEL=debug'));
      const changed = render(dir);
      const changedPod = only<IDeployment>(changed, 'Deployment').spec!.template.spec!;
      const changedSettings = settingsConfigMap(changed, changedPod);
      expect(changedSettings.data.LOG_LEVEL).toBe('debug');
      expect(changedSettings.metadata.name).not.toBe(name);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the pods longer to stop than the gateway takes to drain after its preStop pause', () => {
    const { config } = podConfig();
    const [command, seconds, ...rest] = container.lifecycle?.preStop?.exec?.command ?? [];
    expect([command, rest]).toEqual(['sleep', []]);
    const pause = Number(seconds);
    expect(pause).toBeGreaterThan(0);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(pause + config.shutdownTimeoutMs / 1000);
  });

  it('exposes the public port to the probes and the Service, and the metrics port to Prometheus only', () => {
    const { config } = podConfig();
    const service = only<IService>(manifests, 'Service');
    expect(containerPort('http')).toBe(config.port);
    expect(containerPort('metrics')).toBe(metricsPort());
    expect(metricsPort()).not.toBe(config.port);
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) expect(containerPort(probe?.httpGet?.port)).toBe(config.port);
    // The public Service routes the public port alone: nothing that routes it reaches /metrics.
    expect(service.spec!.ports!.map((port) => containerPort(port.targetPort))).toEqual([config.port]);
    expect(matches(service.spec!.selector, podLabels)).toBe(true);
    const annotations = deployment.spec!.template.metadata!.annotations!;
    expect(annotations['prometheus.io/scrape']).toBe('true');
    expect(Number(annotations['prometheus.io/port'])).toBe(metricsPort());
    expect(annotations['prometheus.io/path']).toBe('/metrics');
  });

  it('lets a drain evict one replica at a time, however many the autoscaler runs', () => {
    const budget = only<IPodDisruptionBudget>(manifests, 'PodDisruptionBudget');
    const autoscaler = only<IHorizontalPodAutoscaler>(manifests, 'HorizontalPodAutoscaler');
    expect(budget.spec!.maxUnavailable).toBe(1);
    expect(budget.spec!.minAvailable).toBeUndefined();
    expect(matches(budget.spec!.selector!.matchLabels, podLabels)).toBe(true);
    // One evicted still leaves a replica serving.
    expect(autoscaler.spec!.minReplicas!).toBeGreaterThan(1);
    expect(deployment.spec!.strategy?.rollingUpdate?.maxUnavailable).toBe(0);
  });

  it('spreads the replicas across zones and across nodes', () => {
    const constraints = pod.topologySpreadConstraints ?? [];
    expect(constraints.map((constraint) => constraint.topologyKey).sort()).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    for (const constraint of constraints) {
      expect(matches(constraint.labelSelector?.matchLabels, podLabels), constraint.topologyKey).toBe(true);
      expect(constraint.maxSkew).toBe(1);
    }
  });

  it('scales the Deployment on CPU, which the container requests', () => {
    const autoscaler = only<IHorizontalPodAutoscaler>(manifests, 'HorizontalPodAutoscaler');
    expect(autoscaler.spec!.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } }]);
    expect(container.resources?.requests?.cpu).toBeDefined();
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
    // Not hash-named: a new manifest reaches running pods, which load it on SIGHUP without a restart.
    expect(volume?.configMap?.name).toBe('infra-graphql-gateway-trusted-documents');
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

  it('are paths the gateway answers, liveness whatever the upstream', async () => {
    const liveness = container.livenessProbe!.httpGet!.path!;
    const readiness = container.readinessProbe!.httpGet!.path!;
    expect(container.startupProbe!.httpGet!.path).toBe(liveness);
    expect((await fetch(`${harness.url}${liveness}`)).status).toBe(200);
    expect((await fetch(`${harness.url}${readiness}`)).status).toBe(200);
    await harness.simulator.stop();
    // An upstream outage restarts no replica.
    expect((await fetch(`${harness.url}${liveness}`)).status).toBe(200);
  });
});

describe('the optional components', () => {
  it('are ingress, network-policy and prometheus-operator, and the example overlay uses each', () => {
    expect(componentNames()).toEqual(['ingress', 'network-policy', 'prometheus-operator']);
    const overlay = parse(readFileSync(join(EXAMPLE_OVERLAY_DIR, 'kustomization.yaml'), 'utf8')) as { components: string[] };
    expect(overlay.components.map((path) => posix.basename(path)).sort()).toEqual(componentNames());
  });

  it.each(componentNames())('%s renders on the base, and its objects validate', async (component) => {
    const objects = renderWithComponents([component]);
    // The base's objects stay, the component's come in beside them.
    expect(objects.length).toBeGreaterThan(manifests.length);
    const unmodelled = await validateAll(objects);
    expect(unmodelled).toEqual(component === 'prometheus-operator' ? ['PodMonitor infra-graphql-gateway', 'PrometheusRule infra-graphql-gateway'] : []);
  });

  describe('ingress', () => {
    const objects = renderWithComponents(['ingress']);
    const ingress = only<IIngress>(objects, 'Ingress');
    const service = only<IService>(objects, 'Service');

    it('routes the gateway\'s public paths to the public port only, over TLS', () => {
      const paths = ingress.spec!.rules!.flatMap((rule) => rule.http!.paths);
      expect(paths.map((path) => path.path).sort()).toEqual(['/graphql', WEBHOOK_PATH.replace(/\/$/, '')].sort());
      for (const path of paths) {
        expect(path.pathType).toBe('Prefix');
        expect(path.backend.service).toEqual({ name: service.metadata!.name, port: { name: 'http' } });
      }
      // The federation endpoint, the probes and /metrics stay inside the cluster.
      for (const inside of [SUBGRAPH_PATH, '/metrics', '/healthz', '/readyz']) expect(paths.some((path) => inside.startsWith(path.path!))).toBe(false);
      const hosts = ingress.spec!.rules!.map((rule) => rule.host);
      expect(ingress.spec!.tls!.flatMap((tls) => tls.hosts)).toEqual(hosts);
      expect(ingress.spec!.tls!.every((tls) => tls.secretName)).toBe(true);
    });

    it('keeps SSE and WebSocket subscriptions open: an hour without a byte, no response buffering', () => {
      const annotations = ingress.metadata!.annotations!;
      expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(3600);
      expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(3600);
      expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
      expect(ingress.spec!.ingressClassName).toBe('nginx');
    });
  });

  describe('network-policy', () => {
    const policy = only<INetworkPolicy>(renderWithComponents(['network-policy']), 'NetworkPolicy');

    it('selects the gateway\'s pods and lets in only the public port (ingress controller) and the metrics port (Prometheus)', () => {
      expect(matches(policy.spec!.podSelector!.matchLabels, podLabels)).toBe(true);
      expect(policy.spec!.policyTypes).toEqual(['Ingress', 'Egress']);
      const ports = policy.spec!.ingress!.map((rule) => rule.ports!.map((port) => containerPort(port.port)));
      expect(ports).toEqual([[containerPort('http')], [metricsPort()]]);
      for (const rule of policy.spec!.ingress!) expect(rule.from!.length).toBeGreaterThan(0);
    });

    it('lets out DNS, Redis, the OTLP collector and the upstream, and nothing else', () => {
      const ports = policy.spec!.egress!.map((rule) => rule.ports!.map((port) => `${port.port}/${port.protocol}`));
      expect(ports).toEqual([['53/UDP', '53/TCP'], ['6379/TCP', '26379/TCP'], ['4317/TCP', '4318/TCP'], ['443/TCP']]);
      for (const rule of policy.spec!.egress!) expect(rule.to!.length).toBeGreaterThan(0);
      // The Redis and upstream ports are those of the URLs the pods use.
      expect(new URL(containerEnvironment().REDIS_URL!).port || '6379').toBe('6379');
      expect(new URL(containerEnvironment().UPSTREAM_URL!).protocol).toBe('https:');
    });
  });

  describe('prometheus-operator', () => {
    const objects = renderWithComponents(['prometheus-operator']);
    const podMonitor = only<{ apiVersion: string; spec: { jobLabel: string; selector: { matchLabels: Record<string, string> }; podMetricsEndpoints: { port: string; path: string }[] } }>(objects, 'PodMonitor');
    const prometheusRule = only<{ apiVersion: string; metadata: { name: string }; spec: { groups: unknown } }>(objects, 'PrometheusRule');

    it('scrapes each pod\'s metrics port as the job the alerts select, and turns the scrape annotation off', () => {
      expect(podMonitor.apiVersion).toBe('monitoring.coreos.com/v1');
      expect(matches(podMonitor.spec.selector.matchLabels, podLabels)).toBe(true);
      expect(podMonitor.spec.podMetricsEndpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
      expect(containerPort('metrics')).toBe(metricsPort());
      // The job is the pods' label value: the one GatewayDown selects.
      const job = podLabels[podMonitor.spec.jobLabel];
      const down = alertGroups.flatMap((group) => group.rules).find((rule) => rule.alert === 'GatewayDown')!;
      expect(down.expr).toContain(`up{job="${job}"}`);
      const annotations = only<IDeployment>(objects, 'Deployment').spec!.template.metadata!.annotations!;
      expect(annotations['prometheus.io/scrape']).toBe('false');
    });

    it('carries deploy/prometheus/alerts.yml as a PrometheusRule, written by npm run prometheus-rule', () => {
      expect(prometheusRule.apiVersion).toBe('monitoring.coreos.com/v1');
      expect(prometheusRule.spec.groups).toEqual(alertGroups);
      expect(readFileSync(PROMETHEUS_RULE_PATH, 'utf8'), 'run npm run prometheus-rule and commit what it writes').toBe(renderPrometheusRule());
    });
  });
});

describe('the example overlay', () => {
  const { manifests: objects, secretEnv } = renderExampleOverlay();
  const overlayDeployment = only<IDeployment>(objects, 'Deployment');
  const overlayContainer = overlayDeployment.spec!.template.spec!.containers[0]!;

  it('renders with a secret.env copied from its example, and validates', async () => {
    const unmodelled = await validateAll(objects);
    expect(unmodelled.sort()).toEqual(['PodMonitor infra-graphql-gateway', 'PrometheusRule infra-graphql-gateway']);
    expect(objects.every((manifest) => (manifest.object.metadata as { namespace?: string }).namespace === 'graphql')).toBe(true);
  });

  it('generates the Secret from secret.env, which git ignores, and the pods read it under its hashed name', () => {
    const secret = only<{ metadata: { name: string }; data: Record<string, string> }>(objects, 'Secret');
    const decoded = Object.fromEntries(Object.entries(secret.data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]));
    expect(decoded).toEqual({ ...parseEnv(secretEnv) });
    expect(secret.metadata.name).toMatch(new RegExp(`^${SECRET_NAME}-[a-z0-9]{10}$`));
    for (const variable of overlayContainer.env ?? []) expect(variable.valueFrom?.secretKeyRef?.name, variable.name).toBe(secret.metadata.name);
    const gitignore = readFileSync(new URL('../../.gitignore', import.meta.url), 'utf8');
    expect(gitignore).toMatch(/^deploy\/overlays\/\*\/secret\.env$/m);
  });

  it('merges its settings into the base\'s, with PUBLIC_URL on the Ingress\' host', () => {
    const settings = settingsConfigMap(objects, overlayDeployment.spec!.template.spec!);
    expect(settings.data.METRICS_PORT).toBe(String(metricsPort()));
    const ingress = only<IIngress>(objects, 'Ingress');
    expect(ingress.spec!.rules!.map((rule) => rule.host)).toEqual([new URL(settings.data.PUBLIC_URL!).host]);
  });
});
