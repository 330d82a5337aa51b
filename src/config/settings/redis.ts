/**
 * The settings of Redis, the state several replicas share (`redis`).
 *
 * One part of the settings table, which `../index.ts` composes in the reference page's order.
 */
import { bytes, integer, milliseconds, redisUrl } from '../parsers.js';
import { optional, setting } from '../declaration.js';

export const redisSettings = Object.freeze({
  redisUrl: optional({
    variable: 'REDIS_URL',
    group: 'redis',
    parser: redisUrl(),
    unset: 'in process, each replica on its own',
    description:
      'One Redis (`redis://` or `rediss://`), a Redis Cluster (`redis+cluster://host:port,host:port`, any reachable seeds) or a master behind Sentinel (`redis+sentinel://host:port,host:port/<master>[/<db>]`, `?sentinelPassword=` when the sentinels need one); `rediss+` for TLS. Holds the job store and results, the live queries\' feed leases and the kept upstream cursors, so that several replicas act as one.',
  }),
  redisResumeGraceMs: setting({
    variable: 'REDIS_RESUME_GRACE_MS',
    group: 'redis',
    parser: milliseconds(0, 3_600_000),
    default: 60_000,
    description:
      'How long open `jobCompleted`/`jobEvents` subscriptions wait, silent, for a lost connection to Redis to come back (and the results published meanwhile to be read from the stream) before they end with `REDIS_UNAVAILABLE`; subscriptions opened meanwhile wait as long. Set it above the time a Redis restart or a Sentinel failover takes.',
  }),
  redisCommandTimeoutMs: setting({
    variable: 'REDIS_COMMAND_TIMEOUT_MS',
    group: 'redis',
    parser: milliseconds(100, 60_000),
    default: 1_000,
    description:
      'Longest a Redis command may go unanswered: past it the command fails as if Redis were stopped (reads fall back, writes answer `REDIS_UNAVAILABLE`), and a Redis that stalls (a frozen process, a partition that sends no reset) is treated as down until it answers again, so it costs a request at most this long.',
  }),
  redisStreamMaxLen: setting({
    variable: 'REDIS_STREAM_MAX_LEN',
    group: 'redis',
    parser: integer(100, 10_000_000),
    default: 10_000,
    description:
      'Entries kept (about: trimmed with `MAXLEN ~`) in each Redis stream, the finished jobs\' and the change feed\'s: how many a replica whose connection was lost may fall behind and still catch up; beyond it its subscriptions end with `REDIS_UNAVAILABLE` and its live queries all run again. Also how far back `jobEvents(after:)` can replay (without Redis, the finished jobs kept in the process for it).',
  }),
  redisOutboxMaxBytes: setting({
    variable: 'REDIS_OUTBOX_MAX_BYTES',
    group: 'redis',
    parser: bytes(65_536, 1_073_741_824),
    default: 16_777_216,
    description:
      'Most bytes of finished jobs and change-feed changes a replica keeps in memory while Redis does not take them, to append them in order once it does; past it newer ones are dropped (counted by `gateway_redis_outbox_dropped_total`, logged at `warn`): their subscribers miss them, `job(id)` still answers.',
  }),
});
