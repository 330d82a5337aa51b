/**
 * Per-credential cost budgets: one token bucket per caller, keyed by a digest of the credential
 * headers. A bucket holds up to `capacity` points and refills at `refillPerSecond`; an operation
 * may start when the bucket holds its requested cost, which is taken at once, and gets back the
 * difference once its actual cost is known (as Shopify's API does).
 *
 * `CostBudget` keeps the buckets in this process; with Redis they are kept there, shared by every
 * replica (`redis-cost-budget.ts`). Both answer through `CostBudgets`.
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

/** Buckets wherever they are kept: this process, or Redis. */
export interface CostBudgets {
  /** Takes `cost` points from the caller's bucket when it holds them. */
  charge(key: string, cost: number): Promise<Charge>;
  /** Gives back points taken for work that was not done. */
  refund(key: string, points: number): Promise<ThrottleStatus>;
}

type BucketShape = Pick<CostBudgetOptions, 'capacity' | 'refillPerSecond'>;

/** The answer to a charge of `cost` from a bucket holding `tokens`: granted when it holds them. */
export function chargeOf(tokens: number, cost: number, options: BucketShape): Charge {
  return tokens >= cost ? { granted: true, status: statusOf(tokens - cost, options) } : refusalOf(tokens, cost, options);
}

/** A charge of `cost` refused by a bucket holding `tokens`: when to retry, and the bucket. */
export function refusalOf(tokens: number, cost: number, options: BucketShape): Charge {
  const missing = cost - tokens;
  const retryAfterSeconds = options.refillPerSecond > 0 ? Math.max(1, Math.ceil(missing / options.refillPerSecond)) : Infinity;
  return { granted: false, retryAfterSeconds, status: statusOf(tokens, options) };
}

/** A bucket holding `tokens`, as `extensions.cost.throttleStatus` shows it. */
export function statusOf(tokens: number, options: BucketShape): ThrottleStatus {
  return { maximumAvailable: options.capacity, currentlyAvailable: Math.floor(tokens), restoreRate: options.refillPerSecond };
}

/** The buckets of `budget`, answered as promises. */
export function memoryCostBudgets(budget: CostBudget): CostBudgets {
  return {
    charge: async (key, cost) => budget.charge(key, cost),
    refund: async (key, points) => budget.refund(key, points),
  };
}

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
    const charge = chargeOf(bucket.tokens, cost, this.options);
    if (charge.granted) bucket.tokens -= cost;
    return charge;
  }

  /** Gives back points taken for work that was not done. */
  refund(key: string, points: number): ThrottleStatus {
    const bucket = this.refilled(key);
    bucket.tokens = Math.min(this.options.capacity, bucket.tokens + Math.max(0, points));
    return statusOf(bucket.tokens, this.options);
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
}
