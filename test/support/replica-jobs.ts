/**
 * What the replica tests (one Redis, a cluster, Sentinel, the replay of lost results) share: a job
 * they start (`updateHostNqn` on a connected host) and read back, a GraphQL POST to any replica
 * (both in `job-calls.ts`), and replicas as processes over one simulator (`replicaFleet`).
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { eventually, spawnGateway, type GatewayProcess } from './process.js';
import { freePort } from './redis.js';

export { connectedHost, gql, JOB_FIELDS, type JobResult, nqn, UPDATE_NQN } from './job-calls.js';

/** Gateway replicas as processes over one in-process simulator, for the tests of one `describe`. */
export interface ReplicaFleet {
  readonly simulator: Simulator;
  /** The resource family's `Authorization` of the simulator's first tenant. */
  readonly headers: Record<string, string>;
  /**
   * Starts a replica on `port` whose webhook address is `publicUrl`, on the fleet's Redis, with
   * `env` over the defaults (its job timings, mostly); it is killed after the test.
   */
  replica(port: number, publicUrl: string, env?: Record<string, string>): Promise<GatewayProcess>;
  /**
   * Starts replicas A and B with `env`, both sending the upstream the address of the one
   * `webhooksTo` names as their webhook, and resolves once both are ready.
   */
  pair(webhooksTo: 'a' | 'b', env?: Record<string, string>): Promise<{ a: GatewayProcess; b: GatewayProcess }>;
}

/**
 * Registers, in the calling `describe`, the hooks of a fleet on the Redis `redisUrl()` names (read
 * when a replica starts, so the Redis may be started by an earlier `beforeAll`): the simulator
 * starts before the tests and stops after them; after each test the replicas are killed and the
 * simulator's webhooks and job delay are set back.
 */
export function replicaFleet(redisUrl: () => string): ReplicaFleet {
  let simulator: Simulator | undefined;
  let simulatorUrl = '';
  let headers: Record<string, string> = {};
  const replicas: GatewayProcess[] = [];

  beforeAll(async () => {
    simulator = createSimulator({ asyncDelayMs: 5 });
    simulatorUrl = await simulator.start(0, '127.0.0.1');
    headers = { authorization: `OAuth ${simulator.credentials.session}` };
  });

  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((replica) => replica.kill('SIGKILL')));
    simulator?.configure({ dropWebhooks: false, asyncDelayMs: 5 });
  });

  afterAll(async () => {
    await simulator?.stop();
  });

  return {
    get simulator() {
      if (simulator === undefined) throw new Error('the fleet\'s simulator starts in beforeAll');
      return simulator;
    },
    get headers() {
      return headers;
    },
    replica,
    async pair(webhooksTo, env = {}) {
      const [portA, portB] = [await freePort(), await freePort()];
      const webhooks = `http://127.0.0.1:${webhooksTo === 'a' ? portA : portB}`;
      const [a, b] = await Promise.all([replica(portA, webhooks, env), replica(portB, webhooks, env)]);
      await Promise.all([a, b].map((gateway) => eventually(async () => (await fetch(`${gateway.url}/readyz`)).status === 200, 'replica ready')));
      return { a, b };
    },
  };

  async function replica(port: number, publicUrl: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
    const started = await spawnGateway({ PORT: String(port), PUBLIC_URL: publicUrl, UPSTREAM_URL: simulatorUrl, REDIS_URL: redisUrl(), LOG_LEVEL: 'warn', ...env });
    replicas.push(started);
    return started;
  }
}
