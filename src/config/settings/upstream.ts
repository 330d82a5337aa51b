/**
 * The settings of the upstream service and how it is called (`upstream`), and of the asynchronous
 * jobs behind mutations (`jobs`).
 *
 * One part of the settings table, which `../index.ts` composes in the reference page's order.
 */
import { httpUrl, integer, milliseconds, release, timeZone } from '../parsers.js';
import { optional, setting } from '../declaration.js';

export const upstreamSettings = Object.freeze({
  upstreamUrl: optional({
    variable: 'UPSTREAM_URL',
    group: 'upstream',
    parser: httpUrl(),
    unset: 'the embedded simulator is started and used',
    description: 'The resource family\'s `{base_url}`; the gateway appends `svc/v1/...`.',
  }),
  cursorUrl: optional({
    variable: 'RESOURCES_URL',
    group: 'upstream',
    parser: httpUrl(),
    unset: 'the origin of `UPSTREAM_URL`',
    description: 'Origin of the cursor family (`/api/v1/resources/...`).',
  }),
  upstreamTimezone: setting({
    variable: 'UPSTREAM_TIMEZONE',
    group: 'upstream',
    parser: timeZone(),
    default: 'UTC',
    description: 'Zone of the upstream\'s timestamp text.',
  }),
  upstreamVersion: optional({
    variable: 'UPSTREAM_VERSION',
    group: 'upstream',
    parser: release(),
    unset: 'the newest release the spec describes',
    description:
      'Release of the upstream: the served schema holds only what that release has, by the spec\'s "Since". `auto` is not offered: the spec names no place where the upstream reports its release.',
  }),
  upstreamTimeoutMs: setting({
    variable: 'UPSTREAM_TIMEOUT_MS',
    group: 'upstream',
    parser: milliseconds(1, 600_000),
    default: 10_000,
    description: 'Time allowed for one upstream request.',
  }),
  upstreamConnections: setting({
    variable: 'UPSTREAM_CONNECTIONS',
    group: 'upstream',
    parser: integer(1, 1024),
    default: 32,
    description: 'Keep-alive connections per upstream origin, and so the most upstream calls in flight per origin.',
  }),
  upstreamMaxQueued: setting({
    variable: 'UPSTREAM_MAX_QUEUED',
    group: 'upstream',
    parser: integer(0, 1_000_000),
    default: 1_000,
    description: 'Upstream calls that may wait per origin once `UPSTREAM_CONNECTIONS` are in flight; more fail at once with `UPSTREAM_UNAVAILABLE`.',
  }),
  upstreamBreakerThreshold: setting({
    variable: 'UPSTREAM_BREAKER_THRESHOLD',
    group: 'upstream',
    parser: integer(1, 1_000_000),
    default: 5,
    description: 'Upstream calls failing in a row (connection refused or dropped, 5xx without ErrorCode, timeout) that open an origin\'s circuit breaker.',
  }),
  upstreamBreakerOpenMs: setting({
    variable: 'UPSTREAM_BREAKER_OPEN_MS',
    group: 'upstream',
    parser: milliseconds(0, 3_600_000),
    default: 5_000,
    description: 'How long an open circuit breaker fails calls at once (`UPSTREAM_UNAVAILABLE`, no upstream request) before one probe call tests the upstream again.',
  }),
  maxBatchSize: setting({
    variable: 'MAX_BATCH_SIZE',
    group: 'upstream',
    parser: integer(1, 1000),
    default: 100,
    description: 'Most keys one DataLoader batch sends upstream; longer batches are split.',
  }),

  mutationWaitMs: setting({
    variable: 'MUTATION_WAIT_MS',
    group: 'jobs',
    parser: milliseconds(0, 600_000),
    default: 20_000,
    description: 'How long a mutation with `async: false` waits for its job before answering `RUNNING`.',
  }),
  jobPollAfterMs: setting({
    variable: 'JOB_POLL_AFTER_MS',
    group: 'jobs',
    parser: milliseconds(10, 600_000),
    default: 2_000,
    description: 'How long to wait for a job\'s webhook before polling the upstream (the pause then grows 1.5x, up to 10 s).',
  }),
  jobTtlMs: setting({
    variable: 'JOB_TTL_MS',
    group: 'jobs',
    parser: milliseconds(1_000, 86_400_000),
    default: 3_600_000,
    description: 'How long finished jobs stay readable with `job(id)`.',
  }),
  jobLeaseMs: setting({
    variable: 'JOB_LEASE_MS',
    group: 'jobs',
    parser: milliseconds(100, 3_600_000),
    default: 15_000,
    description: 'With Redis: how long a replica that stopped renewing its heartbeat keeps its running jobs before another replica claims and polls them, and its subscriptions and live queries counted against their credentials\' caps.',
  }),
});
