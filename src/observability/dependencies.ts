/**
 * `createDependencyWatch(options)`: whether the upstream and Redis answer, as this replica sees
 * them, known without asking them at the moment it is read (so `/healthz` and a scrape cost them
 * nothing and never wait). The upstream's ping is read from its last answer: a read that finds it
 * older than `intervalMs` sends the next one in the background (so a replica that nobody probes or
 * scrapes pings nothing), and a circuit breaker that is not closed counts as down at once; Redis is up while every connection is, which a
 * Redis that stalls loses too (its command connection is dropped, `redis/connection.ts`). Both are shared by every replica, so they are reported (`/healthz`,
 * `gateway_dependency_up`, the alerts) and never make a replica unready: a restart cures neither,
 * and an empty Service would answer the ingress' bare 503 instead of the gateway's coded errors.
 */
import type { Logger } from 'pino';
import type { UpstreamClient } from '../upstream/types.js';

/** The dependencies reported, as the `dependency` label of `gateway_dependency_up`. */
export type Dependency = 'upstream' | 'redis';

/** Each dependency's state: true when it answers; Redis absent without `REDIS_URL`. */
export type DependencyStates = Partial<Record<Dependency, boolean>>;

export interface DependencyWatchOptions {
  upstream: Pick<UpstreamClient, 'ping' | 'health'>;
  /** Redis, when `REDIS_URL` is set: whether every connection is up. */
  redis?: { isReady(): boolean } | undefined;
  /** How old the upstream's last ping may be before a read sends the next one. @default DEFAULT_INTERVAL_MS */
  intervalMs?: number;
  /** Where a dependency going down or coming back is logged. */
  logger: Logger;
}

export interface DependencyWatch {
  /** From now on, reads keep the upstream's ping fresh (the first read sends the first ping). */
  start(): void;
  /** No more pings. */
  stop(): void;
  /** Each dependency's state, from the last ping and what the replica knows now. */
  states(): DependencyStates;
  /**
   * The states once the upstream's ping is fresh: waits for the ping a stale one sends, at most
   * `FRESH_WAIT_MS`. `/healthz` answers so, since an operator asking wants the
   * state now; a scrape reads `states()` and never waits.
   */
  freshStates(): Promise<DependencyStates>;
  /** `'open'` or `'half-open'` while an upstream circuit breaker is not closed, else undefined. */
  breaker(): 'open' | 'half-open' | undefined;
}

/** How old the upstream's last ping may be, in ms: about as often as the kubelet used to probe readiness. */
const DEFAULT_INTERVAL_MS = 5_000;
/**
 * Longest `freshStates` waits for a ping, in ms: well inside a liveness probe's timeout, so an
 * upstream that swallows the ping never fails the probe (the ping goes on in the background).
 */
const FRESH_WAIT_MS = 1_000;

export function createDependencyWatch(options: DependencyWatchOptions): DependencyWatch {
  const { upstream, redis, logger } = options;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  // Up until a ping says otherwise: a replica that just started has not been told of a failure.
  let upstreamPinged = true;
  const reported: DependencyStates = {};
  let pingedAt = 0;
  let pinging = false;
  let running = false;

  function breaker(): 'open' | 'half-open' | undefined {
    const states = Object.values(upstream.health().breakers).map((one) => one.state);
    if (states.includes('open')) return 'open';
    return states.includes('half-open') ? 'half-open' : undefined;
  }

  function states(): DependencyStates {
    if (running && !pinging && Date.now() - pingedAt > intervalMs) void check();
    const now: DependencyStates = { upstream: upstreamPinged && breaker() === undefined };
    if (redis) now.redis = redis.isReady();
    return now;
  }

  /** Logs each change of a dependency's state once, as the checks find it. */
  function noticeChanges(): void {
    for (const [dependency, up] of Object.entries(states()) as [Dependency, boolean][]) {
      if (reported[dependency] === up) continue;
      if (reported[dependency] !== undefined || !up) {
        if (up) logger.info({ dependency }, 'dependency answers again');
        else logger.warn({ dependency }, 'dependency does not answer; reported by /healthz and gateway_dependency_up, the replica stays ready');
      }
      reported[dependency] = up;
    }
  }

  let checking: Promise<void> | undefined;
  function check(): Promise<void> {
    checking ??= (async () => {
      pinging = true;
      try {
        upstreamPinged = await upstream.ping();
        pingedAt = Date.now();
      } finally {
        pinging = false;
        checking = undefined;
      }
      noticeChanges();
    })();
    return checking;
  }

  return {
    start() {
      running = true;
    },
    stop() {
      running = false;
    },
    states,
    async freshStates() {
      if (running && Date.now() - pingedAt > intervalMs) {
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, FRESH_WAIT_MS)));
        await Promise.race([check(), waited]);
        clearTimeout(timer);
      }
      return states();
    },
    breaker,
  };
}
