/**
 * A concurrency cap per upstream origin: at most `maxConcurrent` calls in flight, at most
 * `maxQueued` waiting behind them. A call beyond both fails at once instead of joining an
 * unbounded queue, so a burst of callers cannot pile up memory and latency in the gateway; a
 * waiting call leaves the queue when its deadline (the `AbortSignal`) passes. The client applies
 * it as an interceptor (`interceptors/origin-limit.ts`).
 */
import { ConcurrencyGate } from '../utils/concurrency-gate.js';

export interface OriginLimiterOptions {
  /** Calls in flight per origin (`UPSTREAM_CONNECTIONS`). */
  maxConcurrent: number;
  /** Calls waiting per origin once `maxConcurrent` are in flight (`UPSTREAM_MAX_QUEUED`). */
  maxQueued: number;
}

/** Thrown when an origin's queue is full. */
export class QueueFullError extends Error {
  override name = 'QueueFullError';
  readonly code = 'UPSTREAM_QUEUE_FULL';
}

export class OriginLimiter {
  private readonly byOrigin = new Map<string, ConcurrencyGate>();
  private readonly maxConcurrent: number;
  private readonly maxQueued: number;

  constructor(options: OriginLimiterOptions) {
    this.maxConcurrent = Math.max(1, Math.floor(options.maxConcurrent));
    this.maxQueued = Math.max(0, Math.floor(options.maxQueued));
  }

  /** A release function when a slot is free now; undefined when the call would have to wait. */
  tryAcquire(origin: string): (() => void) | undefined {
    return this.gate(origin).tryAcquire();
  }

  /** Resolves with a release function once a slot is free; rejects when the queue is full or `signal` aborts. */
  acquire(origin: string, signal?: AbortSignal): Promise<() => void> {
    return this.gate(origin).acquire(signal);
  }

  /** Calls in flight and waiting, per origin. */
  snapshot(): Record<string, { active: number; waiting: number }> {
    const out: Record<string, { active: number; waiting: number }> = {};
    for (const [origin, gate] of this.byOrigin) out[origin] = { active: gate.active, waiting: gate.queued };
    return out;
  }

  private gate(origin: string): ConcurrencyGate {
    let gate = this.byOrigin.get(origin);
    if (gate === undefined) {
      gate = new ConcurrencyGate(
        this.maxConcurrent,
        this.maxQueued,
        () => new QueueFullError(`${this.maxConcurrent} upstream calls in flight and ${this.maxQueued} waiting`),
      );
      this.byOrigin.set(origin, gate);
    }
    return gate;
  }
}
