/**
 * A real Prometheus (Debian's `prometheus` package) for a test: a generated configuration in a
 * temporary directory that scrapes the given targets every second and evaluates the given rule
 * files every second, queried over its HTTP API. And PromQL read the way Prometheus' own UI reads
 * it (`@prometheus-io/lezer-promql`), to name the metrics and labels an expression uses.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import type { SyntaxNode } from '@lezer/common';
import { stringify } from 'yaml';
import { eventually } from './process.js';
import { freePort, stopProcess } from './redis.js';

/** The command that installs Prometheus and promtool on Debian. */
export const PROMETHEUS_INSTALL = 'apt-get update && apt-get install -y --no-install-recommends prometheus';

/** Fails with the install command when `program` (prometheus, promtool) is missing. */
export function requireProgram(program: 'prometheus' | 'promtool'): void {
  if (spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status !== 0) {
    throw new Error(`${program} is not installed. Install it with: sudo sh -c '${PROMETHEUS_INSTALL}'`);
  }
}

/** One sample of an instant query's answer. */
export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface Prometheus {
  readonly url: string;
  /** Evaluates `expr` now (or at `time`, epoch seconds); rejects with Prometheus' error when it does not parse or evaluate. */
  query(expr: string, time?: number): Promise<Sample[]>;
  /** `/api/v1/rules`: the rule groups as loaded and last evaluated. */
  rules(): Promise<{ name: string; rules: { name: string; query: string; health: string; lastError?: string }[] }[]>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** `host:port` of each target, scraped as job `jobName`. */
  targets: readonly string[];
  /** @default 'gateway' */
  jobName?: string;
  /** Absolute paths of rule files to load. */
  ruleFiles?: readonly string[];
}

export async function startPrometheus(options: PrometheusOptions): Promise<Prometheus> {
  requireProgram('prometheus');
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [...(options.ruleFiles ?? [])],
    scrape_configs: [{ job_name: options.jobName ?? 'gateway', static_configs: [{ targets: [...options.targets] }] }],
  };
  writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async (): Promise<void> => {
    await stopProcess(child, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${output}`);
        return (await fetch(`${url}/-/ready`).then((response) => response.ok, () => false)) || undefined;
      },
      'Prometheus to be ready',
      300,
      100,
    );
  } catch (error) {
    await stop();
    throw error;
  }

  async function api<T>(path: string, params?: Record<string, string>): Promise<T> {
    const response = await fetch(
      `${url}/api/v1/${path}`,
      params === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) },
    );
    const body = (await response.json()) as { status: string; data: T; errorType?: string; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path} ${JSON.stringify(params)}: ${body.errorType}: ${body.error}`);
    return body.data;
  }

  return {
    url,
    async query(expr, time) {
      const data = await api<{ resultType: string; result: Sample[] | [number, string] }>('query', { query: expr, ...(time === undefined ? {} : { time: String(time) }) });
      if (data.resultType === 'scalar') return [{ metric: {}, value: data.result as [number, string] }];
      return data.result as Sample[];
    },
    async rules() {
      return (await api<{ groups: Awaited<ReturnType<Prometheus['rules']>> }>('rules')).groups;
    },
    stop,
  };
}

/** A vector selector of an expression: its metric and its label matchers. */
export interface Selector {
  readonly text: string;
  readonly metric: string;
  readonly matchers: readonly { label: string; op: '=' | '!=' | '=~' | '!~'; value: string }[];
}

/** Labels an expression groups or matches by (`by (...)`, `on (...)`), with the selectors they apply to. */
export interface Grouping {
  readonly labels: readonly string[];
  readonly over: readonly Selector[];
}

export interface ReadQuery {
  readonly selectors: readonly Selector[];
  readonly groupings: readonly Grouping[];
}

/**
 * Reads the metrics and labels a PromQL expression uses, with Prometheus' own grammar; throws on
 * a syntax error (the error nodes of the parse) and on a selector without a metric name.
 */
export function readQuery(expr: string): ReadQuery {
  const tree = parser.parse(expr);
  const text = (node: SyntaxNode): string => expr.slice(node.from, node.to);
  let error: SyntaxNode | undefined;
  tree.iterate({
    enter(node) {
      if (node.type.isError && error === undefined) error = node.node;
    },
  });
  if (error) throw new Error(`PromQL syntax error at ${error.from} in ${expr}`);

  const selectorsUnder = (node: SyntaxNode): Selector[] => {
    if (node.type.name !== 'VectorSelector') {
      const found: Selector[] = [];
      for (let child = node.firstChild; child !== null; child = child.nextSibling) found.push(...selectorsUnder(child));
      return found;
    }
    const metric = node.getChild('Identifier');
    if (metric === null) throw new Error(`a selector without a metric name: ${text(node)}`);
    const matchers = node
      .getChild('LabelMatchers')
      ?.getChildren('UnquotedLabelMatcher')
      .map((matcher) => ({
        label: text(matcher.getChild('LabelName')!),
        op: text(matcher.getChild('MatchOp')!) as Selector['matchers'][number]['op'],
        value: JSON.parse(text(matcher.getChild('StringLiteral')!)) as string,
      }));
    return [{ text: text(node), metric: text(metric), matchers: matchers ?? [] }];
  };

  const groupings: Grouping[] = [];
  tree.iterate({
    enter(ref) {
      const node = ref.node;
      if (node.type.name === 'AggregateModifier' || node.type.name === 'MatchingModifierClause') {
        const labels = node.getChildren('GroupingLabels').flatMap((group) => group.getChildren('LabelName').map(text));
        // By/without apply to the aggregation's argument; on/ignoring to both sides of the operator.
        groupings.push({ labels, over: selectorsUnder(node.parent!) });
      }
    },
  });
  return { selectors: selectorsUnder(tree.topNode), groupings };
}

/** The samples of a Prometheus text exposition (`/metrics`): each sample name with the label sets it has. */
export function parseExposition(text: string): Map<string, Record<string, string>[]> {
  const samples = new Map<string, Record<string, string>[]>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+( \d+)?$/.exec(line);
    if (!match) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = JSON.parse(`"${pair[2]}"`) as string;
    const sets = samples.get(match[1]!) ?? [];
    sets.push(labels);
    samples.set(match[1]!, sets);
  }
  return samples;
}

/** Labels Prometheus adds to every scraped sample: a query may use them whatever the target exports. */
export const TARGET_LABELS: ReadonlySet<string> = new Set(['job', 'instance']);

/**
 * What is wrong with `query` against what a target exports (`exposition`, from `parseExposition`):
 * a metric it does not export, a label none of the metric's samples has, a matcher no sample
 * satisfies, a grouping label none of the grouped metrics has. Empty when the query reads only
 * what is there. Target labels (job, instance) are Prometheus' and not checked here.
 */
export function unexportedReads(query: ReadQuery, exposition: ReadonlyMap<string, readonly Record<string, string>[]>): string[] {
  const problems: string[] = [];
  const satisfies = (labels: Record<string, string>, matcher: Selector['matchers'][number]): boolean => {
    if (TARGET_LABELS.has(matcher.label)) return true;
    const value = labels[matcher.label] ?? '';
    switch (matcher.op) {
      case '=':
        return value === matcher.value;
      case '!=':
        return value !== matcher.value;
      case '=~':
        return new RegExp(`^(?:${matcher.value})$`).test(value);
      case '!~':
        return !new RegExp(`^(?:${matcher.value})$`).test(value);
    }
  };
  for (const selector of query.selectors) {
    const samples = exposition.get(selector.metric);
    if (!samples) {
      problems.push(`${selector.metric} is not exported`);
      continue;
    }
    for (const matcher of selector.matchers) {
      if (!TARGET_LABELS.has(matcher.label) && !samples.some((labels) => matcher.label in labels)) problems.push(`${selector.metric} has no label ${matcher.label}`);
    }
    if (!samples.some((labels) => selector.matchers.every((matcher) => satisfies(labels, matcher)))) problems.push(`no sample of ${selector.metric} matches ${selector.text}`);
  }
  for (const grouping of query.groupings) {
    for (const label of grouping.labels) {
      if (TARGET_LABELS.has(label)) continue;
      const carried = grouping.over.some((selector) => exposition.get(selector.metric)?.some((labels) => label in labels));
      if (!carried) problems.push(`none of ${grouping.over.map((selector) => selector.metric).join(', ')} has the label ${label} it is grouped or matched by`);
    }
  }
  return problems;
}
