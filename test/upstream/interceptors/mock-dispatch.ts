/**
 * One dispatch over undici's MockAgent, and how it ended: what the interceptor tests compose their
 * interceptor over. `useMockAgent()` gives each test a fresh agent, in `agent`.
 */
import { MockAgent, type Dispatcher } from 'undici';
import { afterEach, beforeEach } from 'vitest';
import type { UpstreamDispatchOptions } from '../../../src/upstream/http.js';

export const ORIGIN = 'http://upstream.test';

export interface Outcome {
  /** Whether the request reached a connection (`onRequestStart`). */
  started: boolean;
  status?: number;
  body?: string;
  error?: Error;
  /** When it ended, in ms after the dispatch. */
  afterMs: number;
  /** When it ended, on `performance.now()`'s clock (to order the ends of several dispatches). */
  endedAt: number;
}

/** Dispatches once and hears how it ends. */
export function send(dispatcher: Dispatcher, options: Partial<UpstreamDispatchOptions> = {}): Promise<Outcome> {
  const began = performance.now();
  return new Promise((resolve) => {
    const outcome: Outcome = { started: false, afterMs: 0, endedAt: 0 };
    const chunks: Buffer[] = [];
    const end = (): void => {
      outcome.endedAt = performance.now();
      outcome.afterMs = outcome.endedAt - began;
      resolve(outcome);
    };
    dispatcher.dispatch({ origin: ORIGIN, path: '/svc/v1/hosts', method: 'GET', ...options } as Dispatcher.DispatchOptions, {
      onRequestStart: () => {
        outcome.started = true;
      },
      onResponseStart: (_controller, status) => {
        outcome.status = status;
      },
      onResponseData: (_controller, chunk) => {
        chunks.push(chunk);
      },
      onResponseEnd: () => {
        outcome.body = Buffer.concat(chunks).toString('utf8');
        end();
      },
      onResponseError: (_controller, error) => {
        outcome.error = error;
        end();
      },
    });
  });
}

/** This test's agent: a live binding, which the hooks `useMockAgent` registers renew per test. */
export let agent: MockAgent;

/** Registers the hooks that give each test its own agent, refusing any real connection. */
export function useMockAgent(): void {
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
  });

  afterEach(async () => {
    await agent.close();
  });
}

/** Answers the next request on `ORIGIN` with `status` and `body`, after `delayMs`. */
export function reply(delayMs = 0, status = 200, body = '{}'): void {
  const scope = agent.get(ORIGIN).intercept({ path: () => true, method: () => true }).reply(status, body);
  if (delayMs > 0) scope.delay(delayMs);
}
