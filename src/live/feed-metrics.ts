/**
 * The change feed's Prometheus metrics, registered on the app's registry (`src/observability/metrics.ts`).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface FeedMetrics {
  /** Upstream reads of the change feed, by collection (record name). */
  readonly pollRequests: Counter<'collection'>;
  /** Polls that failed, by collection and error code. */
  readonly pollErrors: Counter<'collection' | 'code'>;
  /** (scope, collection) pairs this replica polls now (holds the lease of, with Redis). */
  readonly pollers: Gauge;
  /** Invalidations the feed sent, by collection and kind (`records`: named records changed; `collection`: the count did not add up). */
  readonly changes: Counter<'collection' | 'kind'>;
}

export function createFeedMetrics(registry: Registry): FeedMetrics {
  const registers = [registry];
  return {
    pollRequests: new Counter({
      name: 'gateway_live_poll_requests_total',
      help: 'Upstream reads of the live-query change feed, by collection: one per polled (credential scope, collection) and LIVE_POLL_MS, whatever the number of live queries, plus one when more changed than one page holds.',
      labelNames: ['collection'] as const,
      registers,
    }),
    pollErrors: new Counter({
      name: 'gateway_live_poll_errors_total',
      help: 'Change feed polls that failed, by collection and error code (the poller backs off; UNAUTHENTICATED stops polling that credential scope).',
      labelNames: ['collection', 'code'] as const,
      registers,
    }),
    pollers: new Gauge({
      name: 'gateway_live_pollers',
      help: 'Change feed pollers running on this replica: (credential scope, collection) pairs it polls (with Redis: whose lease it holds).',
      registers,
    }),
    changes: new Counter({
      name: 'gateway_live_feed_invalidations_total',
      help: 'Invalidations the change feed sent to live queries, by collection and kind (records: records created or changed; collection: the count revealed a removal).',
      labelNames: ['collection', 'kind'] as const,
      registers,
    }),
  };
}
