/**
 * The gate under admission control and the upstream limiter: at most `limit` holders, a bounded
 * queue behind them, and a limit that may change while in use.
 */
import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from '../../src/utils/concurrency-gate.js';

/** Settles pending promise callbacks. */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrencyGate', () => {
  it('admits up to the limit, queues the next ones first come first served and refuses beyond the queue', async () => {
    const gate = new ConcurrencyGate(1, 1, () => new Error('full'));
    const first = await gate.acquire();
    let admitted = false;
    const second = gate.acquire().then((release) => {
      admitted = true;
      return release;
    });
    await expect(gate.acquire()).rejects.toThrow('full');
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 1, queued: 1 });
    first();
    (await second)();
    expect(admitted).toBe(true);
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('drops a waiting caller whose signal aborts, and admits the next one in its place', async () => {
    const gate = new ConcurrencyGate(1, 5, () => new Error('full'));
    const holder = await gate.acquire();
    const leaving = new AbortController();
    const left = gate.acquire(leaving.signal);
    const next = gate.acquire();
    leaving.abort(new Error('hung up'));
    await expect(left).rejects.toThrow('hung up');
    expect(gate.queued).toBe(1);
    holder();
    (await next)();
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('lets the holders above a lowered limit finish without handing their places on', async () => {
    const gate = new ConcurrencyGate(3, 10, () => new Error('full'));
    const releases = await Promise.all([gate.acquire(), gate.acquire(), gate.acquire()]);
    gate.limit = 1;
    let admitted = false;
    const waiting = gate.acquire().then((release) => {
      admitted = true;
      return release;
    });
    releases[0]!();
    releases[1]!();
    await tick();
    expect(admitted).toBe(false);
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 1, queued: 1 });
    releases[2]!();
    (await waiting)();
    expect(admitted).toBe(true);
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 0, queued: 0 });
  });
});
