/**
 * The retry interceptor over undici's MockAgent: what it tells its caller of each retry, and that
 * it stops once the call ended.
 */
import { describe, expect, it } from 'vitest';
import { createDeadlineInterceptor, DeadlineExceededError } from '../../../src/upstream/interceptors/deadline.js';
import { createRetryInterceptor } from '../../../src/upstream/interceptors/retry.js';
import { agent, ORIGIN, reply, send, useMockAgent } from './mock-dispatch.js';

useMockAgent();

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
