/**
 * `deploy/grafana/gateway.json` and `deploy/prometheus/alerts.yml` against the real thing.
 *
 * promtool checks the rules and runs their unit tests (`alerts.test.yml` and `alerts-slo.test.yml`, Prometheus' own
 * format). Then a real Prometheus scrapes a real gateway (against its simulator, with Redis) while
 * traffic flows: reads, writes (one failing) with a subscription following them, a live query,
 * refused requests, and a spell of upstream faults. Every dashboard query and every alert
 * expression is then read with Prometheus' grammar, and each metric and label it uses is looked
 * for in what the gateway exports on /metrics (so a metric renamed in the code fails here), and
 * evaluated by Prometheus: each panel must show data for that traffic, each alert must evaluate,
 * and Prometheus must have loaded and evaluated every rule without error.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SERVER_ERROR_CODES } from '../../src/observability/metrics.js';
import { startHarness, type Harness } from '../support/harness.js';
import { only, quantity, readKustomization } from '../support/kustomize.js';
import { parseExposition, readQuery, requireProgram, startPrometheus, unexportedReads, type Prometheus } from '../support/prometheus.js';
import { eventually } from '../support/process.js';
import { startRedis, type RedisServer } from '../support/redis.js';
import { subscribeWs, type Collected } from '../support/subscriptions.js';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';

const RULES = new URL('../../deploy/prometheus/alerts.yml', import.meta.url).pathname;
const RULE_TESTS = ['alerts.test.yml', 'alerts-slo.test.yml'].map((file) => new URL(`../../deploy/prometheus/${file}`, import.meta.url).pathname);
/** The scrape job the rules that read Prometheus' own `up` select (the PodMonitor's). */
const JOB = 'infra-graphql-gateway';
const DASHBOARD = new URL('../../deploy/grafana/gateway.json', import.meta.url).pathname;
const DOCS = new URL('../../docs/operations/kubernetes.md', import.meta.url).pathname;

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Group {
  name: string;
  rules: (Rule | { record: string; expr: string })[];
}
const groups = (parse(readFileSync(RULES, 'utf8')) as { groups: Group[] }).groups;
const rules: Rule[] = groups.flatMap((group) => group.rules.filter((rule): rule is Rule => 'alert' in rule));
/** The recording rules: the series they record, and the expressions. */
const recorded = new Map(groups.flatMap((group) => group.rules.flatMap((rule) => ('record' in rule ? [[rule.record, rule.expr] as const] : []))));
/** The group whose rules read kube-state-metrics' series, which no gateway exports. */
const KUBE_STATE_GROUP = 'infra-graphql-gateway-kubernetes';
const kubeStateAlerts = new Set(groups.find((group) => group.name === KUBE_STATE_GROUP)!.rules.flatMap((rule) => ('alert' in rule ? [rule.alert] : [])));

interface Target {
  refId: string;
  expr: string;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  description?: string;
  datasource?: { type: string; uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Target[];
}
interface Variable {
  type: string;
  name: string;
  query: string | { query: string };
}
const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { uid: string; title: string; schemaVersion: number; panels: Panel[]; templating: { list: Variable[] } };
const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
const targets = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel, target })));

function promtool(...args: string[]): string {
  requireProgram('promtool');
  return execFileSync('promtool', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the alerting rules, with promtool', () => {
  it('pass promtool check rules', () => {
    expect(promtool('check', 'rules', RULES)).toContain(`SUCCESS: ${rules.length + recorded.size} rules found`);
  });

  it('pass their unit tests (promtool test rules)', () => {
    const output = promtool('test', 'rules', ...RULE_TESTS);
    expect(output.match(/SUCCESS/g)).toHaveLength(RULE_TESTS.length);
    // promtool evaluates every rule, the 3-day windows too, at each step of each test: about 10 s
    // of CPU, minutes on a loaded machine.
  }, 300_000);

  it('each have a unit test where they fire and one where they do not, and a runbook', () => {
    const tests = RULE_TESTS.flatMap((file) => (parse(readFileSync(file, 'utf8')) as { tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[] }).tests);
    const docs = readFileSync(DOCS, 'utf8');
    const cases = tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const rule of rules) {
      const ofRule = cases.filter((test) => test.alertname === rule.alert);
      expect(ofRule.some((test) => (test.exp_alerts ?? []).length > 0), `${rule.alert} is never shown firing`).toBe(true);
      expect(ofRule.some((test) => (test.exp_alerts ?? []).length === 0), `${rule.alert} is never shown not firing`).toBe(true);
      expect(rule.annotations?.runbook, `${rule.alert} has no runbook`).toBeTruthy();
      // Its runbook_url is the anchor of its runbook's heading in the docs.
      expect(rule.annotations?.runbook_url).toBe(`docs/operations/kubernetes.md#${rule.alert.toLowerCase()}`);
      expect(docs, `${rule.alert}'s runbook heading`).toMatch(new RegExp(`^#### ${rule.alert}$`, 'm'));
      expect(rule.annotations?.description, `${rule.alert} has no description`).toBeTruthy();
      expect(['critical', 'warning']).toContain(rule.labels?.severity);
    }
  });

  it('put the memory alerts\' bounds at the Deployment\'s memory limit, and the heap alert\'s at the heap cap the pods set', () => {
    const { manifests } = readKustomization();
    const deployment = only<IDeployment>(manifests, 'Deployment');
    const container = deployment.spec!.template.spec!.containers[0]!;
    const limitMiB = quantity(container.resources!.limits!.memory!) / 1024 ** 2;
    const settings = only<{ data: Record<string, string> }>(manifests, 'ConfigMap', container.envFrom![0]!.configMapRef!.name);
    const heapMiB = Number(/--max-old-space-size=(\d+)/.exec(settings.data.NODE_OPTIONS ?? '')?.[1]);
    const expr = (alert: string): string => rules.find((rule) => rule.alert === alert)!.expr;
    expect(expr('GatewayMemoryGrowing')).toContain(`> ${limitMiB} * 1024 * 1024`);
    expect(expr('GatewayMemoryNearLimit')).toContain(`> 0.9 * ${limitMiB} * 1024 * 1024`);
    expect(expr('GatewayHeapNearLimit')).toContain(`> 0.9 * ${heapMiB} * 1024 * 1024`);
  });

  it('page when the gateway is gone, on the job the PodMonitor names', () => {
    const down = rules.find((rule) => rule.alert === 'GatewayDown')!;
    expect(down.expr).toContain(`absent(up{job="${JOB}"})`);
    expect(down.labels?.severity).toBe('critical');
  });

  it('measure availability against a target set in one recording rule, with multi-window burn-rate alerts', () => {
    expect(recorded.get('gateway:slo_availability:target')).toMatch(/^vector\(0\.9\d*\)$/);
    // Failures are the server-side codes the gateway names, which it exports from its start.
    for (const window of ['5m', '30m', '1h', '6h', '3d']) {
      const errors = recorded.get(`gateway:slo_errors:rate${window}`)!;
      const codes = [...errors.matchAll(/gateway_graphql_errors_total\{code=~"([^"]+)"\}/g)].map((match) => match[1]);
      expect(codes).toEqual([SERVER_ERROR_CODES.join('|'), SERVER_ERROR_CODES.join('|')]);
    }
    const burns = rules.filter((rule) => rule.alert.startsWith('GatewayErrorBudget')).map((rule) => {
      const windows = [...rule.expr.matchAll(/gateway:slo_errors:ratio_rate(\w+) > ([\d.]+) \* \(1 - scalar\(gateway:slo_availability:target\)\)/g)];
      return { severity: rule.labels?.severity, windows: windows.map((match) => match[1]), factor: [...new Set(windows.map((match) => match[2]))] };
    });
    expect(burns).toEqual([
      { severity: 'critical', windows: ['1h', '5m'], factor: ['14.4'] },
      { severity: 'critical', windows: ['6h', '30m'], factor: ['6'] },
      { severity: 'warning', windows: ['3d', '6h'], factor: ['1'] },
    ]);
  });
});

describe('the dashboard', () => {
  it('is a Grafana dashboard JSON whose panels each read Prometheus through the datasource variable', () => {
    expect(dashboard).toMatchObject({ uid: expect.any(String), title: expect.any(String), schemaVersion: expect.any(Number) });
    expect(dashboard.templating.list.find((variable) => variable.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.description, `${panel.title} says what a healthy value is`).toBeTruthy();
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      expect(panel.targets?.length, `${panel.title} has queries`).toBeGreaterThan(0);
      expect(new Set(panel.targets!.map((target) => target.refId)).size).toBe(panel.targets!.length);
    }
  });

  it('and every alert are described in docs/operations/kubernetes.md', () => {
    const docs = readFileSync(DOCS, 'utf8');
    for (const panel of panels) expect(docs, `the docs describe the panel "${panel.title}"`).toContain(`**${panel.title}**`);
    for (const rule of rules) expect(docs, `the docs describe ${rule.alert}`).toContain(`\`${rule.alert}\``);
  });
});

/** The instance variable's query (`label_values(<metric>, <label>)`) as PromQL. */
function variableQuery(variable: Variable): string {
  const text = typeof variable.query === 'string' ? variable.query : variable.query.query;
  const match = /^label_values\((.+),\s*(\w+)\)$/.exec(text.trim());
  if (!match) throw new Error(`variable ${variable.name}: not a label_values() query: ${text}`);
  return `group by (${match[2]}) (${match[1]})`;
}

describe('the dashboard and the alerts, against a real Prometheus scraping a gateway under traffic', () => {
  let redis: RedisServer;
  let harness: Harness;
  let prometheus: Prometheus;
  let instance: string;
  let exposition: Map<string, Record<string, string>[]>;
  const open: Collected[] = [];

  /** A dashboard query as Grafana sends it: the window over the whole test, the variable set to the gateway. */
  const asSent = (expr: string): string => expr.replaceAll('$__rate_interval', '2m').replaceAll('$instance', instance);

  beforeAll(async () => {
    redis = await startRedis();
    harness = await startHarness({
      // Enough upstream latency for identical reads to overlap; a breaker that recovers within the test.
      simulator: { latencyMs: 20, asyncDelayMs: 50 },
      config: { redisUrl: redis.url, upstreamBreakerThreshold: 2, upstreamBreakerOpenMs: 500 },
    });
    instance = new URL(harness.url).host;
    prometheus = await startPrometheus({ targets: [instance], jobName: JOB, ruleFiles: [RULES] });
    await eventually(async () => (await prometheus.query(`up{job="${JOB}"} == 1`)).length === 1, 'Prometheus to scrape the gateway', 100, 100);

    const { tenantId } = harness.simulator.credentials;
    const hosts = [...harness.simulator.store.hosts.list(tenantId)];
    const connected = hosts.find((host) => host.status === 'Connected')!;
    const disconnected = hosts.find((host) => host.status !== 'Connected')!;
    const headers = harness.headers;
    // Subscriptions stay open while the traffic flows: every job of the credential, and a live query.
    const jobEvents = await subscribeWs(harness.url, 'subscription { jobEvents { id status } }', {}, headers);
    const live = await subscribeWs(harness.url, 'query Hosts @live { hosts(first: 5) { totalCount nodes { name nqn } } }', {}, headers);
    open.push(jobEvents, live);
    await live.waitFor(1);

    const write = (uuid: string, round: number) =>
      harness.gql('mutation($input: UpdateHostNqnInput!) { updateHostNqn(input: $input) { job { status } } }', {
        input: { uuid, nqn: `nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-${String(round).padStart(12, '0')}` },
      });
    const rounds = 8;
    for (let round = 0; round < rounds; round += 1) {
      const started = Date.now();
      await Promise.all([
        // Reads: a new page (a cache miss), a repeated one the writes do not touch (a hit after the first round).
        harness.gql(`{ vmInstances(first: ${10 + round}) { totalCount nodes { name host { name } } } }`),
        harness.gql('query Cached { fiberChannelLuns(first: 3) { nodes { uuid } } }'),
        // Identical queries at once: one execution, the others join it.
        ...[0, 1, 2].map(() => harness.gql(`query Same { volumes(first: ${5 + round}) { nodes { uuid } } }`)),
        // Different documents needing the same upstream read: one upstream request, shared.
        harness.gql(`query A { hbaDevices(first: ${2 + round}) { nodes { uuid } } }`),
        harness.gql(`query B { hbaDevices(first: ${2 + round}) { totalCount nodes { portName } } }`),
        // Refused: no credential; a cost far above MAX_COST.
        harness.gql('{ hosts(first: 1) { totalCount } }', {}, {}),
        harness.gql('{ hosts(first: 100) { nodes { vmInstances(first: 100) { nodes { snapshotGroups(first: 100) { nodes { name } } } } } } }'),
        // A write and a write the upstream refuses (a disconnected host): a job succeeds, one fails.
        write(connected.uuid, round),
        write(disconnected.uuid, round),
      ]);
      if (round === 3) {
        // The upstream fails every call for a moment: 503s, dropped connections, the breaker opens.
        harness.simulator.configure({ faultRate: 1 });
        await Promise.all([0, 1, 2].map((page) => harness.gql(`{ cbtTasks(first: ${page + 1}) { totalCount } }`)));
        harness.simulator.configure({ faultRate: 0 });
        // The next rounds find the upstream back: the breaker's probe closes it.
        await eventually(async () => (await harness.gql('{ hosts(first: 1) { totalCount } }')).errors === undefined, 'the upstream breaker to close', 50, 100);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 800 - (Date.now() - started))));
    }
    await jobEvents.waitFor(rounds * 2);
    exposition = parseExposition(await (await fetch(`${harness.url}/metrics`)).text());
    // Two more scrapes after the last request, so each rate has a sample after it.
    const end = Date.now() / 1000;
    await eventually(async () => Number((await prometheus.query(`timestamp(up{job="${JOB}"})`))[0]?.value[1]) > end + 2, 'two scrapes after the traffic', 100, 100);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(open.map((collected) => collected.close()));
    await prometheus?.stop();
    await harness?.close();
    await redis?.stop();
  });

  it.each(targets.map(({ panel, target }) => [`${panel.title} (${target.refId})`, target.expr] as const))(
    'panel %s reads metrics the gateway exports, with the labels it uses, and shows data',
    async (_name, expr) => {
      const query = asSent(expr);
      expect(unexportedReads(readQuery(query), exposition)).toEqual([]);
      const samples = await prometheus.query(query);
      expect(samples.length, `${query} returned no data`).toBeGreaterThan(0);
      expect(samples.some((sample) => Number.isFinite(Number(sample.value[1]))), `${query} returned only NaN: ${JSON.stringify(samples)}`).toBe(true);
    },
  );

  it.each(dashboard.templating.list.filter((variable) => variable.type === 'query').map((variable) => [variable.name, variable] as const))(
    'variable %s lists the gateway',
    async (_name, variable) => {
      const query = variableQuery(variable);
      expect(unexportedReads(readQuery(query), exposition)).toEqual([]);
      expect((await prometheus.query(query)).map((sample) => sample.metric)).toContainEqual({ instance });
    },
  );

  /**
   * What an expression reads that the gateway does not export, leaving out Prometheus' own `up`
   * and the series recording rules make (each checked through its own expression).
   */
  const unexported = (expr: string): string[] => {
    const query = readQuery(expr);
    const selectors = query.selectors.filter((selector) => selector.metric !== 'up' && !recorded.has(selector.metric));
    const groupings = query.groupings.map((grouping) => ({ ...grouping, over: grouping.over.filter((selector) => selector.metric !== 'up' && !recorded.has(selector.metric)) })).filter((grouping) => grouping.over.length > 0);
    return unexportedReads({ selectors, groupings }, exposition);
  };

  it.each(rules.filter((rule) => !kubeStateAlerts.has(rule.alert)).map((rule) => [rule.alert, rule.expr] as const))('alert %s reads metrics the gateway exports, and evaluates', async (_name, expr) => {
    expect(unexported(expr)).toEqual([]);
    await expect(prometheus.query(expr)).resolves.toBeInstanceOf(Array);
  });

  it.each([...kubeStateAlerts])('alert %s, on kube-state-metrics\' series, evaluates', async (alert) => {
    const expr = rules.find((rule) => rule.alert === alert)!.expr;
    expect(readQuery(expr).selectors.every((selector) => selector.metric.startsWith('kube_'))).toBe(true);
    await expect(prometheus.query(expr)).resolves.toEqual([]);
  });

  it.each([...recorded].map(([name, expr]) => [name, expr] as const))('recording rule %s reads metrics the gateway exports', (_name, expr) => {
    expect(unexported(expr)).toEqual([]);
  });

  it('keeps GatewayDown and GatewayTargetDown quiet while Prometheus scrapes the gateway', async () => {
    for (const alert of ['GatewayDown', 'GatewayTargetDown']) expect(await prometheus.query(rules.find((rule) => rule.alert === alert)!.expr), alert).toEqual([]);
  });

  it('counts the spell of upstream faults as failed answers in the SLO, and not every refused request', async () => {
    const [ratio] = await eventually(async () => {
      const samples = await prometheus.query('gateway:slo_errors:ratio_rate5m');
      return samples.length > 0 && samples;
    }, 'the SLO recording rules to be evaluated', 100, 100);
    expect(ratio!.metric).toEqual({ __name__: 'gateway:slo_errors:ratio_rate5m', job: JOB });
    const failed = Number(ratio!.value[1]);
    expect(failed).toBeGreaterThan(0);
    // Answers with any error (the refused ones, a failing write's) are more than the server-side failures.
    const [withErrors] = await prometheus.query(`sum(rate(gateway_graphql_operations_total{result="error"}[5m])) / sum(rate(gateway_graphql_operations_total[5m]))`);
    expect(failed).toBeLessThan(Number(withErrors!.value[1]));
  });

  it('Prometheus loaded every rule and evaluates each without error', async () => {
    const loaded = await eventually(async () => {
      const all = (await prometheus.rules()).flatMap((group) => group.rules);
      return all.length === rules.length + recorded.size && all.every((rule) => rule.health !== 'unknown') && all;
    }, 'every rule to be evaluated', 100, 100);
    expect(loaded.map((rule) => rule.name).sort()).toEqual([...rules.map((rule) => rule.alert), ...recorded.keys()].sort());
    for (const rule of loaded) expect({ rule: rule.name, health: rule.health, error: rule.lastError ?? '' }).toEqual({ rule: rule.name, health: 'ok', error: '' });
  });
});
