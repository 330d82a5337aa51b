/**
 * The settings of what stays open: subscriptions and WebSockets (`subscriptions`), and `@live`
 * queries with the upstream change feed behind them (`live`).
 *
 * One part of the settings table, which `../index.ts` composes in the reference page's order.
 */
import { bytes, integer, milliseconds } from '../parsers.js';
import { setting } from '../declaration.js';

export const subscriptionSettings = Object.freeze({
  wsMaxBufferedBytes: setting({
    variable: 'WS_MAX_BUFFERED_BYTES',
    group: 'subscriptions',
    parser: bytes(1_024, 1_073_741_824),
    default: 1_048_576,
    description: 'Bytes that may wait unsent on a WebSocket (a client that stopped reading); past it the socket is closed with code 4008.',
  }),
  wsMaxSubscriptionsPerSocket: setting({
    variable: 'WS_MAX_SUBSCRIPTIONS_PER_SOCKET',
    group: 'subscriptions',
    parser: integer(1, 1_000_000),
    default: 100,
    description: 'Subscriptions open at once on one WebSocket.',
  }),
  maxSubscriptionsPerCredential: setting({
    variable: 'MAX_SUBSCRIPTIONS_PER_CREDENTIAL',
    group: 'subscriptions',
    parser: integer(1, 10_000_000),
    default: 500,
    description: 'Subscriptions open at once under one credential, over all its WebSockets and SSE streams: on every replica together with `REDIS_URL`, on this one without.',
  }),
  unverifiedSubscriptionsPerAddress: setting({
    variable: 'UNVERIFIED_SUBSCRIPTIONS_PER_ADDRESS',
    group: 'subscriptions',
    parser: integer(0, 10_000_000),
    default: 100,
    description: 'Subscriptions open at once from one client address under credentials the upstream has not accepted (on this replica), whatever the credentials; `0` turns this cap off.',
  }),

  livePollMs: setting({
    variable: 'LIVE_POLL_MS',
    group: 'live',
    parser: milliseconds(0, 3_600_000),
    default: 2_000,
    description:
      'Interval of the upstream change feed behind `@live` queries: each (credential scope, collection) some live query reads costs one upstream request per interval (more only when over 100 records changed), whatever the number of live queries; `0` turns the feed off (live queries then follow finished jobs only).',
  }),
  liveMinIntervalMs: setting({
    variable: 'LIVE_MIN_INTERVAL_MS',
    group: 'live',
    parser: milliseconds(0, 3_600_000),
    default: 1_000,
    description: 'Least time between two runs of one `@live` query; invalidations meanwhile make one run.',
  }),
  liveMaxPerSocket: setting({
    variable: 'LIVE_MAX_PER_SOCKET',
    group: 'live',
    parser: integer(1, 1_000_000),
    default: 100,
    description: '`@live` queries open at once on one WebSocket; the next is refused with `TOO_MANY_LIVE_QUERIES`.',
  }),
  liveMaxPerCredential: setting({
    variable: 'LIVE_MAX_PER_CREDENTIAL',
    group: 'live',
    parser: integer(1, 10_000_000),
    default: 1_000,
    description: '`@live` queries open at once under one credential, over all its WebSockets and HTTP streams: on every replica together with `REDIS_URL`, on this one without.',
  }),
});
