/**
 * At most `limit` holders at once and at most `maxQueued` waiting behind them, first come first
 * served. A caller beyond both is refused at once instead of joining an unbounded queue; a waiting
 * caller leaves the queue when its `AbortSignal` aborts. The limit may change while in use (the
 * admission control adapts it): a higher one admits waiting callers at once, a lower one lets the
 * holders above it finish without handing their places on.
 */

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class ConcurrencyGate {
  private activeCount = 0;
  private readonly waiting: Waiter[] = [];
  private limitValue: number;

  /** `refuse` makes the error for a caller that finds the queue full. */
  constructor(
    limit: number,
    private readonly maxQueued: number,
    private readonly refuse: (gate: ConcurrencyGate) => Error,
  ) {
    this.limitValue = limit;
  }

  get active(): number {
    return this.activeCount;
  }

  get queued(): number {
    return this.waiting.length;
  }

  get limit(): number {
    return this.limitValue;
  }

  set limit(value: number) {
    this.limitValue = value;
    this.admitWaiting();
  }

  /** Whether the next caller would have to wait (or be refused). */
  get full(): boolean {
    return this.activeCount >= this.limitValue;
  }

  /** This holder's release function when a place is free now; undefined when the caller would have to wait. */
  tryAcquire(): (() => void) | undefined {
    if (this.full) return undefined;
    this.activeCount += 1;
    return this.releaser();
  }

  /** Resolves with this holder's release function (calling it twice is harmless). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!this.full) {
      this.activeCount += 1;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxQueued) return Promise.reject(this.refuse(this));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.waiting.indexOf(waiter);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.activeCount -= 1;
      this.admitWaiting();
    };
  }

  private admitWaiting(): void {
    while (!this.full && this.waiting.length > 0) {
      const waiter = this.waiting.shift()!;
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      this.activeCount += 1;
      waiter.resolve(this.releaser());
    }
  }
}
