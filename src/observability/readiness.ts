/**
 * The replica's readiness: `starting` until the app has started, `ready` until it stops, then
 * `draining`. `/readyz` (`use-readiness.ts`) and `gateway_ready` say it; why it is this replica's
 * own state and never its dependencies' is told there.
 */

/** What the replica is, as `/readyz` and `gateway_ready` say. */
export type ReadinessStatus = 'starting' | 'ready' | 'draining';

export interface Readiness {
  /** Called once the app has started: ready from then on, until it stops. */
  markStarted(): void;
  status(): ReadinessStatus;
}

/** The replica's readiness: `starting` until `markStarted`, `draining` once `stopping` aborts. */
export function createReadiness(stopping: AbortSignal): Readiness {
  let started = false;
  return {
    markStarted() {
      started = true;
    },
    status() {
      if (stopping.aborted) return 'draining';
      return started ? 'ready' : 'starting';
    },
  };
}
