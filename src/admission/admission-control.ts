/**
 * The admission control itself, beside the hook that feeds it (`use-admission.ts`):
 * the limit of operations running at once, the queue, and the refusal (`OverloadedError`) that
 * every transport answers as `OVERLOADED`. The live-query plugin and the graphql-ws bridge take
 * their places here too.
 */
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
