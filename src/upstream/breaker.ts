/**
 * A circuit breaker per upstream origin: after `failureThreshold` calls in a row fail because the
 * upstream is away (connection refused or dropped, a 5xx without ErrorCode, a timeout), it opens
 * and fails calls at once for `openMs`, so a dead upstream costs callers no waiting and gets no
 * load while it recovers. Then it lets one probe call through (half-open): the probe's success
 * closes it, its failure opens it again.
 *
 * Business errors (an ErrorCode), 4xx answers and callers giving up are not failures: they prove
 * the upstream is there.
 */

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Calls failing in a row that open the breaker (`UPSTREAM_BREAKER_THRESHOLD`). */
  failureThreshold: number;
  /** How long an open breaker fails calls before it lets a probe through, in ms (`UPSTREAM_BREAKER_OPEN_MS`). */
  openMs: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
  /** Hears every change of state (logging, metrics). Exceptions it throws are ignored. */
  onStateChange?: ((state: BreakerState, origin: string) => void) | undefined;
}

/** What `admit` answers: go ahead (and report the outcome with the ticket), or fail fast. */
export type Admission =
  | { admitted: true; ticket: BreakerTicket }
  | { admitted: false; retryAfterMs: number };

/** Reports how an admitted call ended; the first report counts, later ones are ignored. */
export interface BreakerTicket {
  success(): void;
  failure(): void;
  /** The call ended without telling anything about the upstream (e.g. the caller gave up). */
  release(): void;
}

export interface BreakerSnapshot {
  state: BreakerState;
  /** Failures in a row so far (closed), or the failures that opened it. */
  consecutiveFailures: number;
  /** When an open breaker lets its next probe through (epoch ms); null unless open. */
  probeAt: number | null;
}

export class CircuitBreaker {
  private state: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private readonly failureThreshold: number;
  private readonly openMs: number;
  private readonly now: () => number;

  constructor(
    readonly origin: string,
    private readonly options: CircuitBreakerOptions,
  ) {
    this.failureThreshold = Math.max(1, Math.floor(options.failureThreshold));
    this.openMs = Math.max(0, options.openMs);
    this.now = options.now ?? Date.now;
  }

  /** Lets a call through, or tells how long until the breaker will try the upstream again. */
  admit(): Admission {
    if (this.state === 'open') {
      const waited = this.now() - this.openedAt;
      if (waited < this.openMs) return { admitted: false, retryAfterMs: this.openMs - waited };
      this.transition('half-open');
    }
    if (this.state === 'half-open') {
      // One probe at a time: the rest fail fast until it tells whether the upstream is back.
      if (this.probing) return { admitted: false, retryAfterMs: 0 };
      this.probing = true;
      return { admitted: true, ticket: this.ticket(true) };
    }
    return { admitted: true, ticket: this.ticket(false) };
  }

  snapshot(): BreakerSnapshot {
    return {
      state: this.state === 'open' && this.now() - this.openedAt >= this.openMs ? 'half-open' : this.state,
      consecutiveFailures: this.failures,
      probeAt: this.state === 'open' ? this.openedAt + this.openMs : null,
    };
  }

  private ticket(probe: boolean): BreakerTicket {
    let reported = false;
    const once = (report: () => void) => () => {
      if (reported) return;
      reported = true;
      if (probe) this.probing = false;
      report();
    };
    return {
      success: once(() => this.onSuccess()),
      failure: once(() => this.onFailure(probe)),
      release: once(() => undefined),
    };
  }

  private onSuccess(): void {
    this.failures = 0;
    if (this.state !== 'closed') this.transition('closed');
  }

  private onFailure(probe: boolean): void {
    this.failures += 1;
    if (probe || (this.state === 'closed' && this.failures >= this.failureThreshold)) {
      this.openedAt = this.now();
      this.transition('open');
    }
  }

  private transition(state: BreakerState): void {
    if (this.state === state) return;
    this.state = state;
    try {
      this.options.onStateChange?.(state, this.origin);
    } catch {
      // Observers must never change the breaker's behaviour.
    }
  }
}

/** One breaker per origin, created on first use. */
export class CircuitBreakers {
  private readonly byOrigin = new Map<string, CircuitBreaker>();

  constructor(private readonly options: CircuitBreakerOptions) {}

  for(origin: string): CircuitBreaker {
    let breaker = this.byOrigin.get(origin);
    if (breaker === undefined) {
      breaker = new CircuitBreaker(origin, this.options);
      this.byOrigin.set(origin, breaker);
    }
    return breaker;
  }

  /** Every origin's breaker, for `/readyz`. */
  snapshot(): Record<string, BreakerSnapshot> {
    const out: Record<string, BreakerSnapshot> = {};
    for (const [origin, breaker] of this.byOrigin) out[origin] = breaker.snapshot();
    return out;
  }
}
