/**
 * The upstream dispatcher's own interceptors, each composed over undici's MockAgent on its own or
 * as `http.ts` stacks them: the deadline, the origin limit, and what the retry tells its caller.
 */
import { MockAgent, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeadlineInterceptor, DeadlineExceededError } from '../../src/upstream/interceptors/deadline.js';
import { createOriginLimitInterceptor } from '../../src/upstream/interceptors/origin-limit.js';
import { createRetryInterceptor } from '../../src/upstream/interceptors/retry.js';
import { OriginLimiter, QueueFullError } from '../../src/upstream/limiter.js';
import type { UpstreamDispatchOptions } from '../../src/upstream/http.js';

const ORIGIN = 'http://upstream.test';

interface Outcome {
  /** Whether the request reached a connection (`onRequestStart`). */
  started: boolean;
  status?: number;
  body?: string;
  error?: Error;
  /** When it ended, in ms after the dispatch. */
  afterMs: number;
}

/** Dispatches once and hears how it ends. */
function send(dispatcher: Dispatcher, options: Partial<UpstreamDispatchOptions> = {}): Promise<Outcome> {
  const began = performance.now();
  return new Promise((resolve) => {
    const outcome: Outcome = { started: false, afterMs: 0 };
    const chunks: Buffer[] = [];
    const end = (): void => {
      outcome.afterMs = performance.now() - began;
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

let agent: MockAgent;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});

afterEach(async () => {
  await agent.close();
});

function reply(delayMs = 0, status = 200, body = '{}'): void {
  const scope = agent.get(ORIGIN).intercept({ path: () => true, method: () => true }).reply(status, body);
  if (delayMs > 0) scope.delay(delayMs);
}

describe('the deadline interceptor', () => {
  it('ends a request whose answer is late at its deadline, after it reached a connection', async () => {
    reply(1000);
    const outcome = await send(agent.compose(createDeadlineInterceptor({ timeoutMs: 50 })));
    expect(outcome.error).toBeInstanceOf(DeadlineExceededError);
    expect((outcome.error as DeadlineExceededError).timeoutMs).toBe(50);
    expect(outcome.started).toBe(true);
    expect(outcome.afterMs).toBeLessThan(900);
  });

  it("takes a dispatch's own shorter deadline", async () => {
    reply(1000);
    const outcome = await send(agent.compose(createDeadlineInterceptor({ timeoutMs: 5000 })), { deadlineMs: 30 });
    expect((outcome.error as DeadlineExceededError).timeoutMs).toBe(30);
  });

  it("ends the request with the caller's own reason when the caller hangs up, and at once when it already had", async () => {
    reply(1000);
    const dispatcher = agent.compose(createDeadlineInterceptor({ timeoutMs: 5000 }));
    const caller = new AbortController();
    const reason = new Error('client went away');
    setTimeout(() => caller.abort(reason), 20);
    expect((await send(dispatcher, { signal: caller.signal })).error).toBe(reason);
    const gone = await send(dispatcher, { signal: caller.signal });
    expect([gone.error, gone.started]).toEqual([reason, false]);
  });

  it('lets an answer in time through untouched', async () => {
    reply(0, 200, '{"ok":true}');
    const outcome = await send(agent.compose(createDeadlineInterceptor({ timeoutMs: 1000 })));
    expect([outcome.status, outcome.body, outcome.error]).toEqual([200, '{"ok":true}', undefined]);
  });
});

describe('the origin limit interceptor', () => {
  it('holds a place per request until its answer ends, queues the next ones and refuses past the queue', async () => {
    const limiter = new OriginLimiter({ maxConcurrent: 1, maxQueued: 1 });
    const dispatcher = agent.compose(createOriginLimitInterceptor(limiter));
    reply(100);
    reply(0);
    const first = send(dispatcher);
    const second = send(dispatcher);
    const refused = await send(dispatcher);
    expect(refused.error).toBeInstanceOf(QueueFullError);
    expect(refused.started).toBe(false);
    expect(limiter.snapshot()[ORIGIN]).toEqual({ active: 1, waiting: 1 });
    const [one, two] = await Promise.all([first, second]);
    expect([one.status, two.status]).toEqual([200, 200]);
    // The second waited for the first to end.
    expect(two.afterMs).toBeGreaterThanOrEqual(one.afterMs - 1);
    expect(limiter.snapshot()[ORIGIN]).toEqual({ active: 0, waiting: 0 });
  });

  it('lets a waiting request leave the queue when its deadline passes, never sent', async () => {
    const limiter = new OriginLimiter({ maxConcurrent: 1, maxQueued: 10 });
    // As http.ts stacks them: the deadline outside, so the wait for a place counts against it.
    const dispatcher = agent.compose(createOriginLimitInterceptor(limiter), createDeadlineInterceptor({ timeoutMs: 5000 }));
    reply(300);
    const holding = send(dispatcher);
    const waiting = await send(dispatcher, { deadlineMs: 30 });
    expect(waiting.error).toBeInstanceOf(DeadlineExceededError);
    expect(waiting.started).toBe(false);
    expect(limiter.snapshot()[ORIGIN]?.waiting).toBe(0);
    expect((await holding).status).toBe(200);
  });
});

describe('the retry interceptor', () => {
  const retry = createRetryInterceptor({ retries: 2, baseDelayMs: 1, maxDelayMs: 1, random: () => 0.5 });

  it('tells the dispatch of each retry, and starts the request once, on the attempt that reached a connection', async () => {
    agent.get(ORIGIN).intercept({ path: () => true }).replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    reply(0, 503, 'restarting');
    reply(0, 200, '{}');
    const retries: number[] = [];
    const outcome = await send(agent.compose(retry), { onRetry: (attempt) => retries.push(attempt) });
    expect(outcome.status).toBe(200);
    expect(outcome.started).toBe(true);
    expect(retries).toEqual([1, 2]);
  });

  it('stops between attempts once the call ended, instead of sending another', async () => {
    agent.get(ORIGIN).intercept({ path: () => true }).replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    reply(0, 200, '{}');
    const slow = createRetryInterceptor({ retries: 1, baseDelayMs: 200, maxDelayMs: 200, random: () => 0.99 });
    const outcome = await send(agent.compose(slow, createDeadlineInterceptor({ timeoutMs: 30 })));
    expect(outcome.error).toBeInstanceOf(DeadlineExceededError);
    expect(outcome.started).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 250));
    // The 200 was never asked for.
    expect(agent.pendingInterceptors()).toHaveLength(1);
  });
});
