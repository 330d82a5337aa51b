/**
 * Admission control: how many GraphQL operations run at once, adapted to how busy the process is.
 *
 * Node runs every operation on one thread. Once that thread is saturated, admitting more
 * operations only interleaves more of them on it: each takes longer, the slowest much longer, and
 * each holds its answers, records and results in memory all that time, which the garbage
 * collector copies at every young-generation collection. So operations beyond the limit wait,
 * first come first served, before their body is even read, and the admitted ones finish sooner.
 *
 * The limit follows the event loop's utilization (the share of the time it was running code), not
 * operation latency, which mostly measures the upstream: every `intervalMs`, at or above
 * `admissionTargetUtilization` the limit shrinks by a tenth (not below `min`); below it, if
 * operations had to wait, it grows by a tenth (not above `maxConcurrentOperations`). So it settles near the fewest operations that
 * keep the thread busy: a slow upstream with an idle thread never caps concurrency, and a
 * saturated thread settles near the floor.
 *
 * Beyond `maxQueuedOperations` waiting, an operation is refused at once: 503 `OVERLOADED` with
 * `Retry-After`, so a burst cannot pile up memory. A waiting client that hangs up leaves the queue.
 * SSE subscriptions are not counted (they last as long as the client wants).
 *
 * Here: the limit of operations running at once, the queue, the refusal (`OverloadedError`) that
 * every transport answers as `OVERLOADED`, and the measuring of the event loop
 * (`createAdmission`). Operations over HTTP take their place through the hook
 * (`use-admission.ts`); live-query runs and queries and mutations over graphql-ws take theirs
 * from `control` directly (the WebSocket bridge is wired in `app.ts`).
 */
import { performance } from 'node:perf_hooks';
import { GraphQLError } from 'graphql';
import { ConcurrencyGate } from '../utils/concurrency-gate.js';

/**
 * Floor of the limit. Not lower: a thread slowed by something else (a neighbour on the CPU, a long
 * collection) also looks busy, and the operations admitted must still cover their waits on the
 * upstream.
 */
const DEFAULT_MIN_LIMIT = 12;

/** What a refused operation is told to wait before it tries again, in seconds. */
export const RETRY_AFTER_SECONDS = 1;

/** The limit's bounds and the queue's, and who hears each refusal. */
export interface AdmissionControlOptions {
  /** Ceiling of the limit, and where it starts (`MAX_CONCURRENT_OPERATIONS`). */
  maxConcurrentOperations: number;
  /** Floor of the limit. @default DEFAULT_MIN_LIMIT (or `maxConcurrentOperations` when smaller) */
  min?: number;
  /** Operations waiting once the limit is reached; more are refused with 503 (`MAX_QUEUED_OPERATIONS`). */
  maxQueuedOperations: number;
  /** Hears every refusal: an operation over HTTP or graphql-ws, or a live query's run. */
  onShed?: () => void;
}

export interface AdmissionSnapshot {
  limit: number;
  active: number;
  queued: number;
}

/** Thrown by `acquire` when the queue is full. */
export class OverloadedError extends Error {
  override name = 'OverloadedError';
}

/** The limit, the operations running and the queue; `adjust` is fed the measured utilization. */
export class AdmissionControl {
  private readonly gate: ConcurrencyGate;
  /** Someone waited since the last adjustment: the limit was binding. */
  private waited = false;
  private readonly max: number;
  private readonly min: number;

  constructor(options: AdmissionControlOptions) {
    this.max = Math.max(1, Math.floor(options.maxConcurrentOperations));
    this.min = Math.min(this.max, Math.max(1, Math.floor(options.min ?? DEFAULT_MIN_LIMIT)));
    // Every refusal is made here, whoever asked for a place: counted once, where it happens.
    this.gate = new ConcurrencyGate(this.max, options.maxQueuedOperations, (gate) => {
      options.onShed?.();
      return new OverloadedError(`${gate.active} operations running and ${gate.queued} waiting`);
    });
  }

  get limit(): number {
    return this.gate.limit;
  }

  /**
   * Resolves with the operation's release function once it may run; rejects with
   * `OverloadedError`, or the signal's reason when its client hangs up while waiting.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.gate.full) this.waited = true;
    return this.gate.acquire(signal);
  }

  /** Feeds the event loop's utilization over the last interval (0 to 1). */
  adjust(utilization: number, targetUtilization: number): void {
    const limit = this.gate.limit;
    if (utilization >= targetUtilization) {
      this.gate.limit = Math.max(this.min, Math.floor(limit * 0.9));
    } else if (this.waited) {
      // Raising the limit admits that many more of the waiting operations at once.
      this.gate.limit = Math.min(this.max, limit + Math.max(1, Math.floor(limit * 0.1)));
    }
    // Still binding if some wait even now; otherwise the next interval starts calm.
    this.waited = this.gate.queued > 0;
  }

  snapshot(): AdmissionSnapshot {
    return { limit: this.gate.limit, active: this.gate.active, queued: this.gate.queued };
  }
}


/** The `OVERLOADED` refusal as graphql-ws sends it: the error HTTP answers in its 503. */
export function overloadedError(error: OverloadedError): GraphQLError {
  return new GraphQLError(`The gateway is overloaded (${error.message}); retry after ${RETRY_AFTER_SECONDS} s.`, {
    extensions: { code: 'OVERLOADED', retryAfter: RETRY_AFTER_SECONDS },
  });
}

/** How often the limit is adjusted, in ms. */
const DEFAULT_INTERVAL_MS = 100;

export interface AdmissionOptions extends AdmissionControlOptions {
  /** Event-loop utilization (0 to 1) at or above which the limit shrinks (`ADMISSION_TARGET_UTILIZATION`); 0 keeps the limit at `maxConcurrentOperations`. */
  admissionTargetUtilization: number;
  /** How often the limit is adjusted. @default DEFAULT_INTERVAL_MS */
  intervalMs?: number;
}

export interface Admission {
  readonly control: AdmissionControl;
  /** Stops measuring the event loop. */
  close(): void;
}

/** The admission control, its limit adjusted every `intervalMs` to the event loop's utilization. */
export function createAdmission(options: AdmissionOptions): Admission {
  const control = new AdmissionControl(options);
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  let timer: NodeJS.Timeout | undefined;
  if (options.admissionTargetUtilization > 0) {
    let since = performance.eventLoopUtilization();
    timer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      control.adjust(performance.eventLoopUtilization(now, since).utilization, options.admissionTargetUtilization);
      since = now;
    }, intervalMs);
    timer.unref();
  }
  return {
    control,
    close() {
      clearInterval(timer);
    },
  };
}
