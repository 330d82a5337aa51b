/**
 * Two gateway apps in this process sharing a real redis-server and one simulator: replicas A and
 * B, for what must cross replicas through Redis (live queries, the change feed).
 */
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.js';
import { defaultConfig, type GatewayConfig } from '../../src/config/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { startRedis, type RedisServer, type RedisServerOptions } from './redis.js';

export interface AppReplicas {
  readonly redis: RedisServer;
  readonly simulator: Simulator;
  readonly replicaA: App;
  readonly replicaB: App;
  stop(): Promise<void>;
}

/** Both replicas with `config` over the defaults (the upstream and `REDIS_URL` set here), started; `redisOptions`: the Redis'. */
export async function startAppReplicas(config: Partial<GatewayConfig>, redisOptions: RedisServerOptions = {}): Promise<AppReplicas> {
  const redis = await startRedis(redisOptions);
  const simulator = createSimulator({ asyncDelayMs: 5 });
  const upstreamUrl = await simulator.start(0, '127.0.0.1');
  const full: GatewayConfig = { ...defaultConfig, port: 0, host: '127.0.0.1', upstreamUrl, redisUrl: redis.url, ...config };
  const replicaA = createApp(full, { logger: pino({ level: 'silent' }) });
  const replicaB = createApp(full, { logger: pino({ level: 'silent' }) });
  await replicaA.start();
  await replicaB.start();
  return {
    redis,
    simulator,
    replicaA,
    replicaB,
    async stop() {
      await replicaA.stop();
      await replicaB.stop();
      await simulator.stop();
      await redis.stop();
    },
  };
}
