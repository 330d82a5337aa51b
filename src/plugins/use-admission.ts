/**
 * Admission control: how many GraphQL operations run at once, adapted to how busy the process is.
 *
 * Node runs every operation on one thread. Once the CPU is the bottleneck, admitting more
 * operations only interleaves more of them on it: each takes longer, the slowest much longer
 * (under a 50-client overload, p99 was 2-3.6x p50). So operations beyond the limit wait, first come
 * first served, before their body is even read, and the admitted ones finish sooner.
 *
 * The limit follows the event loop's delay, the process's own sign of CPU saturation, and not
 * operation latency, which mostly measures the upstream: every `intervalMs` the delay's p90 is
 * read; above `targetLagMs` the limit shrinks by a fifth (not below `min`); at or below it, and if
 * operations had to wait, it grows by a tenth (not above `max`). A slow upstream with an idle CPU
 * therefore never caps concurrency, and a saturated CPU settles near the floor.
 *
 * Beyond `maxQueued` waiting, an operation is refused at once: 503 `OVERLOADED` with
 * `Retry-After`, so a burst cannot pile up memory. A waiting client that hangs up leaves the queue.
 * SSE subscriptions are not counted (they last as long as the client wants); WebSocket operations
 * never pass through here.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Plugin } from 'graphql-yoga';
import { ConcurrencyGate } from '../concurrency-gate.js';

export interface AdmissionOptions {
  /** Ceiling of the limit, and where it starts (`MAX_CONCURRENT_OPERATIONS`). */
  max: number;
  /**
   * Floor of the limit. Not lower: a CPU starved by something else also lags, and with a slow
   * upstream a tiny limit would cap throughput. @default 8 (or `max` when smaller)
   */
  min?: number;
  /** Operations waiting once the limit is reached; more are refused with 503 (`MAX_QUEUED_OPERATIONS`). */
  maxQueued: number;
  /** Event-loop delay (p90, beyond the sampling interval) the limit aims under (`ADMISSION_TARGET_LAG_MS`); 0 keeps the limit at `max`. */
  targetLagMs: number;
  /** How often the limit is adjusted. @default 100 */
  intervalMs?: number;
  /** Hears every refusal. */
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

/** The limit, the operations running and the queue; `adjust` is fed the measured delay. */
export class AdmissionControl {
  private readonly gate: ConcurrencyGate;
  /** Someone waited since the last adjustment: the limit was binding. */
  private waited = false;
  private readonly max: number;
  private readonly min: number;

  constructor(options: Pick<AdmissionOptions, 'max' | 'min' | 'maxQueued'>) {
    this.max = Math.max(1, Math.floor(options.max));
    this.min = Math.min(this.max, Math.max(1, Math.floor(options.min ?? 8)));
    this.gate = new ConcurrencyGate(
      this.max,
      options.maxQueued,
      (gate) => new OverloadedError(`${gate.active} operations running and ${gate.queued} waiting`),
    );
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

  /** Feeds the event loop's delay over the last interval (ms beyond the sampling interval). */
  adjust(lagMs: number, targetLagMs: number): void {
    const limit = this.gate.limit;
    if (lagMs > targetLagMs) {
      this.gate.limit = Math.max(this.min, Math.floor(limit * 0.8));
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

export interface Admission {
  readonly control: AdmissionControl;
  readonly plugin: Plugin;
  /** Stops measuring the event loop. */
  close(): void;
}

export function createAdmission(options: AdmissionOptions): Admission {
  const control = new AdmissionControl(options);
  const intervalMs = options.intervalMs ?? 100;
  let histogram: IntervalHistogram | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (options.targetLagMs > 0) {
    const resolution = 10;
    histogram = monitorEventLoopDelay({ resolution });
    histogram.enable();
    const sampled = histogram;
    timer = setInterval(() => {
      // The histogram records each sampling interval's length: its resolution is the baseline.
      const lagMs = Math.max(0, sampled.percentile(90) / 1e6 - resolution);
      sampled.reset();
      control.adjust(lagMs, options.targetLagMs);
    }, intervalMs);
    timer.unref();
  }

  // Keyed by the server context, which (unlike the request) no plugin can replace.
  const releases = new WeakMap<object, () => void>();
  const plugin: Plugin = {
    async onRequest({ request, serverContext, endResponse, fetchAPI }) {
      if (request.headers.get('accept')?.includes('text/event-stream')) return;
      let release: () => void;
      try {
        release = await control.acquire(request.signal);
      } catch (error) {
        // A client that hung up while waiting: nobody reads an answer.
        if (!(error instanceof OverloadedError)) return endResponse(new fetchAPI.Response(null, { status: 499 }));
        options.onShed?.();
        return endResponse(overloaded(fetchAPI, error));
      }
      releases.set(serverContext, release);
      // Over node:http the slot is also freed if no response is ever made (the socket closes).
      (serverContext as { res?: { once?: (event: 'close', listener: () => void) => void } }).res?.once?.('close', release);
    },
    onResponse({ serverContext }) {
      releases.get(serverContext)?.();
      releases.delete(serverContext);
    },
  };

  return {
    control,
    plugin,
    close() {
      clearInterval(timer);
      histogram?.disable();
    },
  };
}

const RETRY_AFTER_SECONDS = 1;

/** 503 `OVERLOADED`, shaped like every other GraphQL error answer. */
function overloaded(fetchAPI: { Response: typeof Response }, error: OverloadedError): Response {
  const body = {
    errors: [
      {
        message: `The gateway is overloaded (${error.message}); retry after ${RETRY_AFTER_SECONDS} s.`,
        extensions: { code: 'OVERLOADED', retryAfter: RETRY_AFTER_SECONDS },
      },
    ],
  };
  return new fetchAPI.Response(JSON.stringify(body), {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(RETRY_AFTER_SECONDS) },
  });
}
