/**
 * Subscription clients as real callers use them: graphql-ws over a WebSocket, and SSE over HTTP.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface Collected<T = Record<string, unknown>> {
  /** Every result received so far. */
  readonly results: { data?: T | null; errors?: { message: string; extensions?: Record<string, unknown> }[] }[];
  /** Resolves when `count` results have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves when the server completed the subscription. */
  readonly completed: Promise<void>;
  close(): Promise<void>;
}

function collector<T>(): {
  collected: Omit<Collected<T>, 'close' | 'completed'>;
  push: (result: Collected<T>['results'][number]) => void;
} {
  const results: Collected<T>['results'] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  return {
    collected: {
      results,
      waitFor(count, timeoutMs = 10_000) {
        if (results.length >= count) return Promise.resolve();
        return new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`only ${results.length} of ${count} results after ${timeoutMs} ms`)), timeoutMs);
          waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
        });
      },
    },
    push(result) {
      results.push(result);
      for (const waiter of waiters.filter((candidate) => results.length >= candidate.count)) waiter.resolve();
    },
  };
}

/** Subscribes over graphql-ws (`graphql-transport-ws`); credentials go in `connectionParams`. */
export async function subscribeWs<T = Record<string, unknown>>(
  httpUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  connectionParams: Record<string, string> = {},
): Promise<Collected<T>> {
  const client: Client = createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
  });
  const { collected, push } = collector<T>();
  let subscribed!: () => void;
  const ready = new Promise<void>((resolve) => (subscribed = resolve));
  const completed = new Promise<void>((resolve, reject) => {
    client.on('connected', () => subscribed());
    client.subscribe<T>({ query, variables }, {
      next: (result) => push(result as Collected<T>['results'][number]),
      error: (error) => {
        push({ errors: Array.isArray(error) ? error : [{ message: String(error) }] });
        resolve();
      },
      complete: () => resolve(),
    });
    client.on('error', reject);
  });
  await ready;
  return { ...collected, completed, close: () => client.dispose() as Promise<void> };
}

/** Subscribes over Server-Sent Events (yoga's GraphQL over SSE); credentials go in headers. */
export async function subscribeSse<T = Record<string, unknown>>(
  httpUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Collected<T>> {
  const abort = new AbortController();
  const response = await fetch(`${httpUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  if (!response.ok || !response.body) throw new Error(`SSE subscription answered ${response.status}`);
  const { collected, push } = collector<T>();
  const completed = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary: number;
        while ((boundary = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const name = /^event: (.*)$/m.exec(event)?.[1];
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (name === 'complete') return;
          if (data) push(JSON.parse(data) as Collected<T>['results'][number]);
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  return { ...collected, completed, close: async () => abort.abort() };
}
