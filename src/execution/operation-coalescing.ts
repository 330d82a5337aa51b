/**
 * `createOperationCoalescing`: identical queries in flight share one execution. A wall of
 * dashboards sending the same query with the same credential costs one execution and one set of
 * upstream calls for all the copies that arrive while it runs, instead of one each.
 *
 * Two operations are identical when they have the same document (as printed), operation name,
 * variables and credentials as the upstream reads them (`credentialsIdentity`). Only queries share:
 * never mutations or subscriptions, never an operation with `@defer`/`@stream` (its parts are a
 * stream of its own), never a caller without credentials (it makes no upstream call anyway).
 *
 * Unlike a cache, nothing outlives the execution: a caller joins only an execution still running,
 * and only one that started after its credential's last finished write (`writeFinished`, called
 * where the response cache drops what a write made stale). An execution running when a write of
 * its credential finishes takes no new callers: the next identical query starts a fresh one, so a
 * caller always reads its own writes.
 *
 * Each caller goes through the whole plugin pipeline on its own (admitted, charged and reported by
 * cost and budget, counted, cached) except the execution itself: its hook
 * (`use-operation-coalescing.ts`) goes before the cost gate in the plugin list, so the gate wraps
 * it, and after graphql-jit, so the shared execution runs the compiled function. Each caller gets its own copy of the result, so what the later
 * plugins add (`extensions.cost`) is its own. The shared execution runs on a copy of the first
 * caller's context with loaders of its own and a hang-up signal of its own, aborted only when
 * every caller waiting for it has hung up: one client leaving never cancels the others' reads.
 */
import { initContextCache } from '@pothos/core';
import { BREAK, getOperationAST, print, visit, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { forgetLoadedRecords, type GatewayContext } from '../context.js';
import { SharedFlights, type FlightControl } from '../upstream/shared-flights.js';
import { liveRunGeneration } from './execution-kind.js';

export interface OperationCoalescingOptions {
  /** Called for every query that could share: `true` when it joined an execution in flight, `false` when it started one. */
  onQuery?: (joined: boolean) => void;
}

export interface OperationCoalescing {
  /**
   * Runs a query with `execute`, the executor in place: joins the identical execution in flight,
   * or starts the one later identical queries join. An operation that may not share (and a
   * caller already gone, which is cancelled alone) runs on its own.
   */
  execute(args: ExecutionArgs, execute: Execute): ExecuteResult | Promise<ExecuteResult>;
  /**
   * A write of the credential whose job owner digest is `owner` finished: its queries in flight
   * take no new callers (read your writes).
   */
  writeFinished(owner: string): void;
}

type ExecuteResult = Awaited<ReturnType<Parameters<NonNullable<Plugin['onExecute']>>[0]['executeFn']>>;
/** An executor, as envelop's `onExecute` hands it over. */
export type Execute = (args: ExecutionArgs) => ExecuteResult | Promise<ExecuteResult>;

export function createOperationCoalescing(options: OperationCoalescingOptions = {}): OperationCoalescing {
  // The same in-flight sharing as the upstream client's identical GETs: callers leave on their own
  // signal, the execution is aborted once all have left, and a credential's finished write closes
  // its executions (grouped by the credential's job owner) to newcomers.
  const executions = new SharedFlights(() => options.onQuery?.(true));
  const keyOf = createCoalescingKeys();

  /** Runs the shared execution on a copy of the first caller's context. */
  function start(args: ExecutionArgs, execute: Execute, flight: FlightControl): Promise<ExecuteResult> {
    options.onQuery?.(false);
    const context = args.contextValue as GatewayContext;
    // Loaders of its own (released when it ends; each caller's own are released by
    // useReleaseLoadedRecords) and the signal of all its callers rather than the first one's.
    const contextValue: GatewayContext = {
      ...context,
      ...initContextCache(),
      signal: flight.signal,
      session: context.session.withSignal(flight.signal),
    };
    return Promise.resolve()
      .then(() => execute({ ...args, contextValue }))
      .finally(() => forgetLoadedRecords(contextValue));
  }

  async function join(key: string, args: ExecutionArgs, execute: Execute): Promise<ExecuteResult> {
    const { signal, caller } = args.contextValue as GatewayContext;
    const owner = caller.owner;
    let started = false;
    const result = await executions.run(
      key,
      signal,
      (flight) => {
        started = true;
        return start(args, execute, flight);
      },
      owner,
    );
    // Unreachable for the operations shared (incremental delivery is never shared); an
    // iterator cannot be read by two callers, so any caller but its first runs alone.
    if (isAsyncIterable(result)) return started ? result : execute(args);
    return answerFor(result);
  }

  return {
    execute(args, execute) {
      const key = keyOf(args);
      // A caller already gone runs (and is cancelled) alone.
      if (key === null || (args.contextValue as GatewayContext).signal?.aborted) return execute(args);
      return join(key, args, execute);
    },
    writeFinished(owner) {
      executions.close(owner);
    },
  };
}

/** A caller's own copy of a shared result: the plugins after this one add to its `extensions`. */
function answerFor(result: ExecutionResult): ExecutionResult {
  return result.extensions === undefined ? { ...result } : { ...result, extensions: { ...result.extensions } };
}

/**
 * What makes two operations identical (null when the operation must run alone), with each
 * document's printed text and whether it may share kept while the document lives.
 */
function createCoalescingKeys(): (args: ExecutionArgs) => string | null {
  const printed = new WeakMap<DocumentNode, Map<string, string | null>>();
  return (args) => {
    const { caller } = args.contextValue as GatewayContext;
    if (caller.anonymous) return null;
    let byOperation = printed.get(args.document);
    if (byOperation === undefined) printed.set(args.document, (byOperation = new Map()));
    const name = args.operationName ?? '';
    let text = byOperation.get(name);
    if (text === undefined) {
      const shareable = getOperationAST(args.document, args.operationName)?.operation === 'query' && !isIncremental(args.document);
      text = shareable ? print(args.document) : null;
      byOperation.set(name, text);
    }
    if (text === null) return null;
    // A live query's run shares only with runs woken by the same invalidation (use-live-query.ts).
    const generation = liveRunGeneration(args.contextValue) ?? null;
    return JSON.stringify([text, args.operationName ?? null, args.variableValues ?? null, caller.key, generation]);
  };
}

/** Whether the document asks for incremental delivery anywhere (`@defer`, `@stream`). */
function isIncremental(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}
