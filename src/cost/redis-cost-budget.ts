/**
 * The cost budgets in Redis (`REDIS_URL`): one bucket per credential shared by every replica, so
 * a caller's spending on one replica counts on the others and outlives a rolling upgrade.
 *
 * - A bucket is a hash `gw:v1:budget:{<key>}` (`<key>` the caller's key, a digest carrying no
 *   credential): `tokens` and `at`, when they were counted (ms, Redis' clock). `v1` is the format
 *   of the key and its fields: a change to either takes a new version, and replicas of two
 *   releases then keep a bucket each (at worst twice the budget during the upgrade).
 * - One script refills a bucket for the time since `at`, then takes a charge when the bucket holds
 *   it, or gives a refund back: one round trip each, atomic whichever replicas charge at once.
 *   Redis' clock times the refill, so the replicas' clocks need not agree.
 * - A bucket expires once it would be full again (plus a second): a forgotten bucket starts full,
 *   as it would be by then, so Redis keeps no bucket of a caller gone quiet.
 * - Redis unreachable: charges and refunds go to this replica's own buckets (`fallback`), so
 *   callers are still held to a budget, each replica's, rather than refused; a refund whose charge
 *   went elsewhere (Redis went or came back in between) lands in the bucket it reaches.
 */
import type { Logger } from 'pino';
import { guardRedis, type RedisConnection } from '../redis/connection.js';
import { chargeOf, refusalOf, statusOf, type CostBudget, type CostBudgetOptions, type CostBudgets } from './cost-budget.js';

/** The key of a credential's bucket (see above for `v1`). */
export const budgetKey = (credential: string): string => `gw:v1:budget:{${credential}}`;

/**
 * KEYS[1]: a credential's bucket. ARGV: capacity, refill per second, points: taken when the
 * bucket holds them if positive, given back if negative. Returns `{taken, tokensBefore}` (the
 * tokens after the refill, before the points, as text: a Lua number reply is cut to an integer).
 */
const BUCKET_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local capacity = tonumber(ARGV[1])
local refill = tonumber(ARGV[2])
local points = tonumber(ARGV[3])
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) / 1000 * refill)
local before = tokens
local taken = 0
if points < 0 then
  tokens = math.min(capacity, tokens - points)
elseif tokens >= points then
  tokens = tokens - points
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%d', now))
if refill > 0 then redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / refill * 1000) + 1000) end
return {taken, string.format('%.17g', before)}`;

export interface RedisCostBudgetsOptions extends Pick<CostBudgetOptions, 'capacity' | 'refillPerSecond'> {
  connection: RedisConnection;
  /** This replica's own buckets, used while Redis is unreachable. */
  fallback: CostBudget;
  logger: Logger;
}

export function createRedisCostBudgets(options: RedisCostBudgetsOptions): CostBudgets {
  const { connection, fallback, logger } = options;
  let failing = false;

  /** Runs the script for `points` on `key`'s bucket: whether they were taken, and the tokens before; null when Redis failed. */
  async function apply(key: string, points: number): Promise<{ taken: boolean; before: number } | null> {
    try {
      const [taken, before] = (await guardRedis('charge cost budget', () =>
        connection.commands.eval(BUCKET_SCRIPT, 1, budgetKey(key), String(options.capacity), String(options.refillPerSecond), String(points)),
      )) as [number, string];
      if (failing) logger.info('cost budgets are shared through Redis again');
      failing = false;
      return { taken: taken === 1, before: Number(before) };
    } catch (error) {
      if (!failing) logger.warn({ err: error }, 'cost budgets could not be kept in Redis: each replica keeps its own until it is back');
      failing = true;
      return null;
    }
  }

  return {
    async charge(key, cost) {
      const applied = await apply(key, cost);
      if (applied === null) return fallback.charge(key, cost);
      return applied.taken ? chargeOf(applied.before, cost, options) : refusalOf(applied.before, cost, options);
    },
    async refund(key, points) {
      const back = Math.max(0, points);
      const applied = await apply(key, -back);
      if (applied === null) return fallback.refund(key, back);
      return statusOf(Math.min(options.capacity, applied.before + back), options);
    },
  };
}
