/**
 * `createOperationMetrics`: counts GraphQL operations and times queries and mutations, and keeps
 * the gauge of open subscriptions, over HTTP, SSE and graphql-ws alike (the WebSocket path runs
 * through the same envelop). A shared execution (`shared-subscriptions.ts`) is not counted itself: its
 * subscribers are, one by one, through `countSubscriber`.
 *
 * Labels say only what the gateway knows: the operation type, the schema's root field selected,
 * and the operation's name only when the operator listed it (`operationNames`).
 */
import { getOperationAST, Kind, type ExecutionArgs, type ExecutionResult, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayMetrics } from './metrics.js';
import { isSharedExecution } from '../execution/execution-kind.js';

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
  plugin: Plugin;
  /** Counts a subscriber of a shared execution started (or refused); the function it answers counts it closed. */
  countSubscriber(args: ExecutionArgs, accepted: boolean): () => void;
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

  const plugin: Plugin = {
    onExecute({ args }) {
      const labels = labelsOf(args);
      const end = metrics.operationDuration.startTimer(labels);
      const done = (failed: boolean): void => {
        end();
        metrics.operations.inc({ ...labels, result: failed ? 'error' : 'success' });
      };
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) return done((result.errors?.length ?? 0) > 0);
          // @defer/@stream: the operation lasts until its last increment.
          let failed = false;
          return {
            onNext({ result: increment }) {
              if ((increment.errors?.length ?? 0) > 0) failed = true;
            },
            onEnd: () => done(failed),
          };
        },
      };
    },
    onSubscribe({ args }) {
      if (isSharedExecution(args.contextValue)) return undefined;
      return {
        onSubscribeResult({ result }) {
          const accepted = isAsyncIterable(result);
          const closed = countSubscriber(args, accepted);
          return accepted ? { onEnd: closed } : undefined;
        },
        onSubscribeError() {
          metrics.operations.inc({ ...labelsOf(args), result: 'error' });
        },
      };
    },
    // Every answer sent over HTTP passes here, refused ones too (parse, validation, limits, cost);
    // a stream's events (SSE, multipart) do not.
    onResultProcess({ result }) {
      for (const answer of Array.isArray(result) ? result : [result]) {
        if (isAsyncIterable(answer)) continue;
        for (const error of (answer as ExecutionResult).errors ?? []) metrics.graphqlErrors.inc({ code: errorCodeLabel(error.extensions?.code) });
      }
    },
  };
  return { plugin, countSubscriber };
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
