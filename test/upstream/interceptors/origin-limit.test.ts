/**
 * The origin limit interceptor over undici's MockAgent, alone and under the deadline as `http.ts`
 * stacks them.
 */
import { describe, expect, it } from 'vitest';
import { createDeadlineInterceptor, DeadlineExceededError } from '../../../src/upstream/interceptors/deadline.js';
import { createOriginLimitInterceptor } from '../../../src/upstream/interceptors/origin-limit.js';
import { OriginLimiter, QueueFullError } from '../../../src/upstream/limiter.js';
import { agent, ORIGIN, reply, send, useMockAgent } from './mock-dispatch.js';

useMockAgent();

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
    expect(two.endedAt).toBeGreaterThanOrEqual(one.endedAt);
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
