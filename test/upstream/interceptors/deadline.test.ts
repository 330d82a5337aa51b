/**
 * The deadline interceptor over undici's MockAgent: a late answer, a dispatch's own deadline, a
 * caller that hangs up.
 */
import { describe, expect, it } from 'vitest';
import { createDeadlineInterceptor, DeadlineExceededError } from '../../../src/upstream/interceptors/deadline.js';
import { agent, reply, send, useMockAgent } from './mock-dispatch.js';

useMockAgent();

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
