/**
 * `useLiveQuery`: `query Dashboard @live { ... }` answers at once, then again whenever what it
 * read may have changed (a finished job, the upstream change feed: `src/live/`), over graphql-ws,
 * SSE and yoga's multipart HTTP. The protocol is the ecosystem's (`@n1ru4l/graphql-live-query`: the
 * `@live(if:, throttle:)` directive, `isLive` results, and JSON-patch deltas of
 * `@n1ru4l/graphql-live-query-patch-json-patch` for a client that asks with
 * `extensions: { livePatch: "json-patch" }`); the store is the gateway's own, because
 * `@n1ru4l/in-memory-live-query-store` re-runs an operation on the context it started with (its
 * loaders would answer every run with the first run's records), knows no credential scope (an
 * invalidation there re-runs every caller's queries), and wraps every resolver of the schema.
 *
 * Each run:
 * - waits for its turn under the admission control, as an operation over HTTP does, so a burst
 *   of invalidations cannot run more executions at once than the limit; a run the full queue
 *   refuses is tried again later (the first one, refused, answers `OVERLOADED` and ends);
 * - reads the upstream afresh: the context's loaders are emptied after every run, and a job's
 *   invalidation comes after the in-flight reads it may have outdated were closed (`app.ts`);
 * - is charged to the caller's budget as a query is, requested cost up front, refunded what it
 *   did not read (`QueryCost.runCharged`): a refusal (`RATE_LIMITED`) is the live query's last answer;
 * - runs under the caller's own context, so with its own credentials only;
 * - may share an execution in flight with identical live queries of the same credential woken by
 *   the same invalidation (operation coalescing, keyed with `liveRunGeneration`), never with one
 *   that started before it, nor with another credential's.
 *
 * Goes after operation coalescing and before the cost gate in the plugin list: the gate lets live
 * executions through (each run pays for itself), and the response cache is disabled for them.
 */
import { applyLiveQueryJSONPatchGenerator } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { getLiveDirectiveArgumentValues, getLiveDirectiveNode, NoLiveMixedWithDeferStreamRule } from '@n1ru4l/graphql-live-query';
import { Repeater } from '@repeaterjs/repeater';
import { getOperationAST, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { forgetLoadedRecords, type GatewayContext } from '../context.js';
import { OverloadedError, overloadedError } from '../admission/admission-control.js';
import { markLiveExecution, markMaybeLiveRequest, setLiveRunGeneration } from '../execution/execution-kind.js';
import type { SchemaCollections } from './collections.js';
import type { LiveQueries } from './live-queries.js';

export interface LiveQueryOptions {
  /** The open live queries: admission under the caps, invalidation, scheduling. */
  live: LiveQueries;
  /** The collections each document reads. */
  collections: SchemaCollections;
  /** Charges each run to the caller's budget (`QueryCost.runCharged`); `refused` when it was not. */
  runCharged: (args: ExecutionArgs, run: (args: ExecutionArgs) => Promise<ExecutionResult>) => Promise<{ result: ExecutionResult; refused: boolean }>;
  /**
   * A place among the operations running (`AdmissionControl.acquire`): resolves with its release,
   * rejects with `OverloadedError` when the queue is full or with `signal`'s reason.
   */
  admit: (signal: AbortSignal) => Promise<() => void>;
}

const LIVE_TEXT = /@\s*live\b/;

type Execute = (args: ExecutionArgs) => unknown;

export function useLiveQuery(options: LiveQueryOptions): Plugin<GatewayContext> {
  const { live, collections, runCharged, admit } = options;

  function executeLive(args: ExecutionArgs, execute: Execute, throttleMs: number | undefined): ExecutionResult | AsyncIterableIterator<ExecutionResult> {
    const context = args.contextValue as GatewayContext;
    const scope = context.caller;
    // Aborted when the live query ends: a run still waiting for its turn leaves the queue.
    const stopped = new AbortController();
    const runOnce = async (): Promise<{ result: ExecutionResult; refused: boolean }> => {
      const release = await admit(stopped.signal);
      setLiveRunGeneration(context, String(live.generationOf(scope.key)));
      try {
        return await runCharged(args, async (runArgs) => (await execute(runArgs)) as ExecutionResult);
      } finally {
        release();
        // The next run reads the upstream afresh, and nothing is held between runs.
        forgetLoadedRecords(context);
      }
    };
    return new Repeater<ExecutionResult>(async (push, stop) => {
      let closeOnStop = (): void => undefined;
      const ended = stop.then(() => {
        stopped.abort();
        closeOnStop();
      });
      const deliver = async (result: ExecutionResult, refused: boolean): Promise<void> => {
        if (refused) {
          await push(result);
          stop();
          return;
        }
        await push({ ...result, isLive: true } as ExecutionResult);
      };
      const handle = await live.open({
        scope,
        collections: collections.readBy(args.document),
        socket: socketOf(args),
        throttleMs,
        run: async () => {
          const { result, refused } = await runOnce();
          await deliver(result, refused);
        },
      });
      if (!('close' in handle)) {
        await push({ errors: [handle] });
        stop();
        return;
      }
      closeOnStop = () => handle.close();
      // Ended while its place was being taken.
      if (stopped.signal.aborted) {
        handle.close();
        return;
      }
      try {
        const { result, refused } = await runOnce();
        await deliver(result, refused);
      } catch (error) {
        // Overloaded: answered as over HTTP, and the live query ends. Gone: nobody to answer.
        if (error instanceof OverloadedError) await push({ errors: [overloadedError(error)] });
        stop();
        return;
      } finally {
        handle.firstRunDone();
      }
      await ended;
    });
  }

  return {
    onParams({ params, request }) {
      if (typeof params.query === 'string' && LIVE_TEXT.test(params.query)) markMaybeLiveRequest(request);
    },
    onValidate({ addValidationRule }) {
      addValidationRule(NoLiveMixedWithDeferStreamRule);
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'query') return;
      const directive = getLiveDirectiveNode(operation);
      if (!directive) return;
      const { isLive, throttleValue } = getLiveDirectiveArgumentValues(directive, args.variableValues);
      if (!isLive) return;
      // Without a credential every field fails UNAUTHENTICATED: answered once, nothing to keep live.
      if ((args.contextValue as GatewayContext).caller.anonymous) return;
      markLiveExecution(args.contextValue as object);
      const patches = wantsJsonPatch(args.contextValue);
      setExecuteFn((executeArgs) => {
        const results = executeLive(executeArgs, executeFn as Execute, throttleValue ?? undefined);
        return patches && isAsyncIterable(results) ? (applyLiveQueryJSONPatchGenerator(results) as AsyncIterableIterator<ExecutionResult>) : results;
      });
    },
  };
}

/** Whether the request asked for JSON-patch deltas (`extensions: { livePatch: "json-patch" }`). */
function wantsJsonPatch(context: unknown): boolean {
  const extensions = (context as { params?: { extensions?: Record<string, unknown> } }).params?.extensions;
  return extensions?.livePatch === 'json-patch';
}

/** The graphql-ws socket an operation runs on: its `closed` signal, one per connection (`graphql-ws-yoga.ts`). */
function socketOf(args: ExecutionArgs): object | undefined {
  const closed = (args.rootValue as { closed?: unknown } | null | undefined)?.closed;
  return typeof closed === 'object' && closed !== null ? closed : undefined;
}
