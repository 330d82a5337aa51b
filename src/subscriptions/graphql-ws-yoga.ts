/**
 * graphql-ws operations through yoga's pipeline: the graphql-ws server hooks (`onSubscribe`,
 * `execute`, `subscribe`) that give an operation over WebSocket the same plugins as over HTTP
 * (parsing limits, validation, context, cost, shared subscriptions), with the admission and the
 * subscription limits that HTTP applies in its own hooks.
 */
import type { IncomingMessage } from 'node:http';
import { getOperationAST, GraphQLError, type ExecutionArgs } from 'graphql';
import type { OperationResult, ServerOptions, SubscribePayload } from 'graphql-ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { refuseOverlongWebSocketCredentials, type GatewayContext } from '../context.js';
import { withShortQuotes } from '../errors/quotes.js';
import { OverloadedError, overloadedError, type AdmissionControl } from '../admission/admission-control.js';
import { tooDeeplyNested } from '../utils/json-depth.js';
import type { SubscriptionLimits } from './subscription-limits.js';
import { graphqlWsWriter, type DirectWriter, type SharedSubscriptions } from './shared-subscriptions.js';
import type { SocketExtra } from '../server/websocket.js';

/** What yoga receives besides the request: `connectionParams` for WebSocket operations. */
export interface ServerContext {
  connectionParams?: Readonly<Record<string, unknown>> | undefined;
  /** The node:http request (yoga's node adapter passes it; the WebSocket path passes the upgrade request). */
  req?: IncomingMessage | undefined;
}

export interface GraphqlWsYogaOptions {
  yoga: YogaServerInstance<ServerContext, GatewayContext>;
  /** Where yoga serves GraphQL over HTTP: the URL of the request yoga's plugins see. */
  graphqlEndpoint: string;
  /** Queries and mutations wait for their turn as over HTTP (subscriptions, as over SSE, do not). */
  admission: Pick<AdmissionControl, 'acquire'>;
  /**
   * Hears every operation answered with an error before it ran (admission, subscription limits),
   * which yoga's plugins never see end: tracing ends the operation's span here.
   */
  onRefused?: ((operation: RefusedOperation, error: GraphQLError) => void) | undefined;
  sharedSubscriptions: Pick<SharedSubscriptions, 'subscribe'>;
  subscriptionLimits: Pick<SubscriptionLimits, 'take' | 'release'>;
  /**
   * What HTTP's onParams plugins do to a request before it is parsed, for a subscribe payload:
   * trusted documents put the manifest's text in place of an id, or refuse the operation.
   */
  resolvePayload?: ((payload: SubscribePayload) => SubscribePayload | GraphQLError) | undefined;
}

/** An operation refused after parsing and validation, before execution. */
export type RefusedOperation = Pick<ExecutionArgs, 'document' | 'operationName' | 'contextValue'>;

/** The graphql-ws server options that run each operation through `yoga`'s pipeline. */
export function graphqlWsOverYoga(options: GraphqlWsYogaOptions): ServerOptions<Record<string, unknown> | undefined, SocketExtra> {
  const { yoga, admission, sharedSubscriptions, subscriptionLimits } = options;
  return {
    execute: async (args) => {
      const { execute, closed } = args.rootValue as Enveloped;
      let release: () => void;
      try {
        release = await admission.acquire(closed);
      } catch (error) {
        const refusal = error instanceof OverloadedError ? overloadedError(error) : new GraphQLError('The connection closed.');
        options.onRefused?.(args, refusal);
        return { errors: [refusal] };
      }
      try {
        return await execute(args);
      } finally {
        release();
      }
    },
    subscribe: (args) => sharedSubscriptions.subscribe(args, (leader) => (leader.rootValue as Enveloped).subscribe(leader)),
    onSubscribe: async (ctx, id, received) => {
      const payload = options.resolvePayload ? options.resolvePayload(received) : received;
      if (payload instanceof GraphQLError) return [payload];
      // What useRequestValidation refuses over HTTP: graphql-ws has checked the rest of the payload's shape.
      const tooDeep = tooDeeplyNested(payload);
      if (tooDeep !== null) return [new GraphQLError(tooDeep, { extensions: { code: 'BAD_REQUEST' } })];
      const { schema: enveloped, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
        connectionParams: ctx.connectionParams,
        req: ctx.extra.request,
        // A POST, as graphql-ws operations are to yoga's plugins: a GET would refuse mutations (405).
        request: new Request(`http://localhost${options.graphqlEndpoint}`, { method: 'POST' }),
        params: payload,
      });
      let document: ReturnType<typeof parse>;
      try {
        document = parse(payload.query);
      } catch (error) {
        // A syntax error or a token limit: an error message for this operation, not a closed socket.
        if (error instanceof GraphQLError) return [withShortQuotes(error)];
        throw error;
      }
      const errors = validate(enveloped, document);
      if (errors.length > 0) return errors.map(withShortQuotes);
      try {
        refuseOverlongWebSocketCredentials(ctx.connectionParams, ctx.extra.request.headers);
      } catch (error) {
        // As over HTTP: this operation's UNAUTHENTICATED, before anything keys on the caller.
        if (error instanceof GraphQLError) return [error];
        throw error;
      }
      const contextValue = await contextFactory();
      if (getOperationAST(document, payload.operationName)?.operation === 'subscription') {
        const refused = await subscriptionLimits.take(ctx.extra, id, contextValue);
        if (refused !== null) {
          options.onRefused?.({ document, operationName: payload.operationName ?? null, contextValue }, refused);
          return [refused];
        }
      }
      const args: ExecutionArgs = {
        schema: enveloped,
        document,
        operationName: payload.operationName ?? null,
        variableValues: payload.variables ?? null,
        contextValue,
        rootValue: { execute, subscribe, writer: graphqlWsWriter(ctx.extra.send, id), closed: ctx.extra.closed } satisfies Enveloped,
      };
      return args;
    },
    onComplete: (ctx, id) => subscriptionLimits.release(ctx.extra, id),
  };
}

/** What `onSubscribe` hands the other hooks as the operation's root value. */
interface Enveloped {
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
  /** Writes a shared execution's events straight to this operation's connection. */
  writer: DirectWriter;
  /** Aborts when the operation's connection closes. */
  closed: AbortSignal;
}

/** The writer of a shared execution's events to the connection of the operation whose root value this is. */
export function writerOf(args: ExecutionArgs): DirectWriter {
  return (args.rootValue as Enveloped).writer;
}
