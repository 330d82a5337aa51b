/**
 * `createOperationMetrics`: counts GraphQL operations and times queries and mutations, and keeps
 * the gauge of open subscriptions, over HTTP, SSE and graphql-ws alike (the WebSocket path runs
 * through the same envelop, where `use-operation-metrics.ts` hears each operation). A shared execution (`shared-subscriptions.ts`) is not counted itself: its
 * subscribers are, one by one, through `countSubscriber`.
 *
 * Labels say only what the gateway knows: the operation type, the schema's root field selected,
 * and the operation's name only when the operator listed it (`operationNames`).
 */
import { getOperationAST, Kind, type ExecutionArgs, type ExecutionResult, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { GatewayMetrics } from './metrics.js';

export interface UseMetricsOptions {
  /** Where to record. */
  metrics: GatewayMetrics;
  /**
   * Operation names labelled as themselves (`METRICS_OPERATION_NAMES`); any other name counts as
   * `other`, a nameless operation as `anonymous`. `/metrics` needs no credential, and a name is
   * the client's own text: it may say what the client is working on, and a client inventing names
   * would grow the registry without bound. So only names the operator listed are shown.
   */
  metricsOperationNames: readonly string[];
}

export interface OperationMetrics {
  /** Counts a subscriber started (or refused); the function it answers counts it closed. */
  countSubscriber(args: ExecutionArgs, accepted: boolean): () => void;
  /** Starts timing a query or mutation; the function it answers counts it ended, failed or not. */
  startOperation(args: ExecutionArgs): (failed: boolean) => void;
  /** Counts a subscription that failed to start. */
  countFailedSubscription(args: ExecutionArgs): void;
  /** Counts the errors of an answer sent, by their code. */
  countErrors(answer: ExecutionResult): void;
}

type Labels = { operation_type: string; operation_name: string; root_field: string };

export function createOperationMetrics(options: UseMetricsOptions): OperationMetrics {
  const { metrics } = options;
  const knownNames = new Set(options.metricsOperationNames);

  function labelsOf(args: ExecutionArgs): Labels {
    const operation = getOperationAST(args.document, args.operationName);
    const name = operation?.name?.value;
    return {
      operation_type: operation?.operation ?? 'unknown',
      operation_name: name === undefined ? 'anonymous' : knownNames.has(name) ? name : 'other',
      root_field: operation ? rootFieldOf(args, operation) : 'unknown',
    };
  }

  function countSubscriber(args: ExecutionArgs, accepted: boolean): () => void {
    const labels = labelsOf(args);
    metrics.operations.inc({ ...labels, result: accepted ? 'success' : 'error' });
    if (!accepted) return () => undefined;
    metrics.openSubscriptions.inc();
    let open = true;
    return () => {
      if (open) metrics.openSubscriptions.dec();
      open = false;
    };
  }

  return {
    countSubscriber,
    startOperation(args) {
      const labels = labelsOf(args);
      const end = metrics.operationDuration.startTimer(labels);
      return (failed) => {
        end();
        metrics.operations.inc({ ...labels, result: failed ? 'error' : 'success' });
      };
    },
    countFailedSubscription(args) {
      metrics.operations.inc({ ...labelsOf(args), result: 'error' });
    },
    countErrors(answer) {
      for (const error of answer.errors ?? []) metrics.graphqlErrors.inc({ code: errorCodeLabel(error.extensions?.code) });
    },
  };
}

/**
 * An error's `extensions.code` as a label value: the gateway's codes are UPPER_SNAKE_CASE words;
 * anything else (a resolver's free text) counts as `other`, so the label stays a short list.
 */
function errorCodeLabel(code: unknown): string {
  if (code === undefined || code === null) return 'none';
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : 'other';
}

/**
 * The schema field an operation selects at its root (`vmInstances`), `multiple` when it selects
 * several. Only names of the schema's root type can come out (`other` otherwise), so the label
 * has as many values as the schema has root fields, whatever clients send.
 */
function rootFieldOf(args: ExecutionArgs, operation: OperationDefinitionNode): string {
  const names = new Set<string>();
  collectRootFields(args, operation.selectionSet, names, new Set());
  if (names.size !== 1) return names.size === 0 ? 'unknown' : 'multiple';
  const [name = ''] = names;
  const known = args.schema.getRootType(operation.operation)?.getFields()[name] !== undefined || META_FIELDS.has(name);
  return known ? name : 'other';
}

const META_FIELDS = new Set(['__schema', '__type', '__typename']);

function collectRootFields(args: ExecutionArgs, selectionSet: SelectionSetNode, names: Set<string>, seen: Set<string>): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      names.add(selection.name.value);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collectRootFields(args, selection.selectionSet, names, seen);
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = args.document.definitions.find((definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value);
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) collectRootFields(args, fragment.selectionSet, names, seen);
    }
  }
}
