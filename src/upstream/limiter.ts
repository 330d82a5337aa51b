/**
 * A concurrency cap per upstream origin: at most `maxConcurrent` calls in flight, at most
 * `maxQueued` waiting behind them. A call beyond both fails at once instead of joining an
 * unbounded queue, so a burst of callers cannot pile up memory and latency in the gateway; a
 * waiting call leaves the queue when its deadline (the `AbortSignal`) passes.
 */

export interface OriginLimiterOptions {
  /** Calls in flight per origin. @default 32 */
  maxConcurrent?: number | undefined;
  /** Calls waiting per origin once `maxConcurrent` are in flight. @default 1000 */
  maxQueued?: number | undefined;
}

/** Thrown when an origin's queue is full. */
export class QueueFullError extends Error {
  override name = 'QueueFullError';
  readonly code = 'UPSTREAM_QUEUE_FULL';
}

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

class Slots {
  active = 0;
  readonly waiting: Waiter[] = [];
}

export class OriginLimiter {
  private readonly byOrigin = new Map<string, Slots>();
  private readonly maxConcurrent: number;
  private readonly maxQueued: number;

  constructor(options: OriginLimiterOptions = {}) {
    this.maxConcurrent = Math.max(1, Math.floor(options.maxConcurrent ?? 32));
    this.maxQueued = Math.max(0, Math.floor(options.maxQueued ?? 1000));
  }

  /** Resolves with a release function once a slot is free; rejects when the queue is full or `signal` aborts. */
  acquire(origin: string, signal?: AbortSignal): Promise<() => void> {
    const slots = this.slots(origin);
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (slots.active < this.maxConcurrent) {
      slots.active += 1;
      return Promise.resolve(this.releaser(origin, slots));
    }
    if (slots.waiting.length >= this.maxQueued) {
      return Promise.reject(new QueueFullError(`${this.maxConcurrent} upstream calls in flight and ${this.maxQueued} waiting`));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = slots.waiting.indexOf(waiter);
          if (index >= 0) slots.waiting.splice(index, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      slots.waiting.push(waiter);
    });
  }

  /** Calls in flight and waiting, per origin. */
  snapshot(): Record<string, { active: number; waiting: number }> {
    const out: Record<string, { active: number; waiting: number }> = {};
    for (const [origin, slots] of this.byOrigin) out[origin] = { active: slots.active, waiting: slots.waiting.length };
    return out;
  }

  private slots(origin: string): Slots {
    let slots = this.byOrigin.get(origin);
    if (slots === undefined) {
      slots = new Slots();
      this.byOrigin.set(origin, slots);
    }
    return slots;
  }

  private releaser(origin: string, slots: Slots): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slots.waiting.shift();
      if (next === undefined) {
        slots.active -= 1;
        return;
      }
      // The slot passes straight to the next waiter: `active` stays as it is.
      next.signal?.removeEventListener('abort', next.onAbort);
      next.resolve(this.releaser(origin, slots));
    };
  }
}
