/**
 * Per-credential cost budgets: one token bucket per caller, keyed by a digest of the credential
 * headers. A bucket holds up to `capacity` points and refills at `refillPerSecond`; an operation
 * may start when the bucket holds its requested cost, which is taken at once, and gets back the
 * difference once its actual cost is known (as Shopify's API does).
 */

export interface CostBudgetOptions {
  /** Points a full bucket holds. */
  capacity: number;
  /** Points a bucket regains per second. */
  refillPerSecond: number;
  /** Buckets kept at most; the least recently used go first (a forgotten bucket starts full again). */
  maxBuckets: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
}

/** The state of a caller's bucket, as `extensions.cost.throttleStatus` shows it. */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export type Charge =
  | { granted: true; status: ThrottleStatus }
  | { granted: false; retryAfterSeconds: number; status: ThrottleStatus };

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class CostBudget {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxBuckets: number;
  private readonly now: () => number;

  constructor(private readonly options: CostBudgetOptions) {
    this.maxBuckets = Math.max(1, options.maxBuckets);
    this.now = options.now ?? Date.now;
  }

  /** Takes `cost` points from the caller's bucket when it holds them. */
  charge(key: string, cost: number): Charge {
    const bucket = this.refilled(key);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { granted: true, status: this.status(bucket) };
    }
    const missing = cost - bucket.tokens;
    const retryAfterSeconds = this.options.refillPerSecond > 0 ? Math.max(1, Math.ceil(missing / this.options.refillPerSecond)) : Infinity;
    return { granted: false, retryAfterSeconds, status: this.status(bucket) };
  }

  /** Gives back points taken for work that was not done. */
  refund(key: string, points: number): ThrottleStatus {
    const bucket = this.refilled(key);
    bucket.tokens = Math.min(this.options.capacity, bucket.tokens + Math.max(0, points));
    return this.status(bucket);
  }

  private refilled(key: string): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.options.capacity, updatedAt: now };
      if (this.buckets.size >= this.maxBuckets) {
        const oldest = this.buckets.keys().next().value;
        if (oldest !== undefined) this.buckets.delete(oldest);
      }
    } else {
      // Re-inserted below, so the Map's order is least recently used first.
      this.buckets.delete(key);
      const elapsed = Math.max(0, now - bucket.updatedAt) / 1000;
      bucket.tokens = Math.min(this.options.capacity, bucket.tokens + elapsed * this.options.refillPerSecond);
      bucket.updatedAt = now;
    }
    this.buckets.set(key, bucket);
    return bucket;
  }

  private status(bucket: Bucket): ThrottleStatus {
    return {
      maximumAvailable: this.options.capacity,
      currentlyAvailable: Math.floor(bucket.tokens),
      restoreRate: this.options.refillPerSecond,
    };
  }
}
