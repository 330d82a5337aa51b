/**
 * `npm run prometheus-rule`: writes the Prometheus Operator's PrometheusRule
 * (deploy/kubernetes/components/prometheus-operator/prometheus-rule.yaml) from
 * deploy/prometheus/alerts.yml, the one source of the rules. test/deploy/kubernetes.test.ts holds
 * the written file equal to what this renders, so an edit of alerts.yml without a run fails there.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';

export const ALERTS_PATH = fileURLToPath(new URL('../deploy/prometheus/alerts.yml', import.meta.url));
export const PROMETHEUS_RULE_PATH = fileURLToPath(new URL('../deploy/kubernetes/components/prometheus-operator/prometheus-rule.yaml', import.meta.url));

const HEADER = `# Generated from deploy/prometheus/alerts.yml by \`npm run prometheus-rule\`: edit that file, then run it.
# Your Prometheus loads the rules of the PrometheusRules its ruleSelector matches: give this one
# the label it wants in your overlay (kube-prometheus-stack's default: release: <its release name>).
`;

/** The PrometheusRule holding `alerts` (the text of alerts.yml): its groups as they are, comments left out. */
export function renderPrometheusRule(alerts: string = readFileSync(ALERTS_PATH, 'utf8')): string {
  const { groups } = parse(alerts) as { groups: unknown[] };
  const rule = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'infra-graphql-gateway', labels: { 'app.kubernetes.io/name': 'infra-graphql-gateway' } },
    spec: { groups },
  };
  return HEADER + stringify(rule, { lineWidth: 0 });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(PROMETHEUS_RULE_PATH, renderPrometheusRule());
  process.stdout.write(`wrote ${PROMETHEUS_RULE_PATH}\n`);
}
