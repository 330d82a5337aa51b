/**
 * The fleet soak's memory series: every replica's RSS and V8 heap, and Redis' memory, sampled
 * together, appended to a CSV file as they are taken (a run cut short keeps what it measured), and
 * fitted to growth per hour once the warm-up is past.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Redis } from 'ioredis';
import { sampleMemory } from '../../bench/fanout.js';
import type { GatewayProcess } from '../../bench/processes.js';
import { FINISHED_STREAM_KEY } from '../../src/redis/streams.js';
import { fitGrowth, megabytes, type Growth } from './statistics.js';

/** A replica as the sampler reads it: its process, and the file its heap probe answers in. */
export interface SampledReplica {
  readonly name: string;
  readonly gateway: GatewayProcess;
  readonly heapFile: string;
}

/** One sample, memory in MB. */
export interface MemorySample {
  /** Seconds since the soak's clock started. */
  t: number;
  replicas: Record<string, { rssMb: number; heapMb: number }>;
  redis: {
    usedMb: number;
    /** What the finished-jobs stream takes of `usedMb` (Redis' `MEMORY USAGE`, every entry counted). */
    streamMb: number;
    streamEntries: number;
    keys: number;
  };
}

export interface MemorySampler {
  /** Takes a sample (each replica collects its garbage first) and appends it to the file. */
  sample(): Promise<MemorySample>;
  readonly samples: readonly MemorySample[];
  /**
   * Growth per hour of each series over the samples taken at or after `fromSeconds`: each
   * replica's RSS and heap, Redis' `used_memory`, and that less the stream (which grows by design
   * until it holds its capped 10,000 entries).
   */
  growth(fromSeconds: number): Record<string, Growth | null>;
}

export function createMemorySampler(options: { replicas: readonly SampledReplica[]; redis: Redis; file: string; startedAt: number }): MemorySampler {
  const { replicas, redis, file, startedAt } = options;
  const samples: MemorySample[] = [];
  mkdirSync(dirname(file), { recursive: true });
  const replicaColumns = replicas.flatMap((replica) => [`replica_${replica.name}_rss_mb`, `replica_${replica.name}_heap_mb`]);
  writeFileSync(file, `${['elapsed_s', ...replicaColumns, 'redis_used_mb', 'redis_stream_mb', 'redis_stream_entries', 'redis_keys'].join(',')}\n`);

  async function sampleRedis(): Promise<MemorySample['redis']> {
    const info = await redis.info('memory');
    const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
    const stream = Number((await redis.call('MEMORY', 'USAGE', FINISHED_STREAM_KEY, 'SAMPLES', '0')) ?? 0);
    return { usedMb: megabytes(used), streamMb: megabytes(stream), streamEntries: await redis.xlen(FINISHED_STREAM_KEY), keys: await redis.dbsize() };
  }

  return {
    samples,
    async sample() {
      const sample: MemorySample = { t: Math.round((Date.now() - startedAt) / 1000), replicas: {}, redis: await sampleRedis() };
      for (const replica of replicas) {
        // RSS read from /proc just after the collection the probe ran, so both series show live memory.
        const { heapUsed } = await sampleMemory(replica.gateway, replica.heapFile);
        sample.replicas[replica.name] = { rssMb: megabytes(await replica.gateway.rss()), heapMb: megabytes(heapUsed) };
      }
      samples.push(sample);
      const perReplica = replicas.flatMap((replica) => [sample.replicas[replica.name]!.rssMb, sample.replicas[replica.name]!.heapMb]);
      appendFileSync(file, `${[sample.t, ...perReplica, sample.redis.usedMb, sample.redis.streamMb, sample.redis.streamEntries, sample.redis.keys].join(',')}\n`);
      return sample;
    },
    growth(fromSeconds) {
      const fitted = samples.filter((sample) => sample.t >= fromSeconds);
      const series = (value: (sample: MemorySample) => number) => fitGrowth(fitted.map((sample) => ({ t: sample.t, value: value(sample) })));
      const growth: Record<string, Growth | null> = {};
      for (const replica of replicas) {
        growth[`replica ${replica.name} RSS`] = series((sample) => sample.replicas[replica.name]!.rssMb);
        growth[`replica ${replica.name} heap`] = series((sample) => sample.replicas[replica.name]!.heapMb);
      }
      growth['Redis used_memory'] = series((sample) => sample.redis.usedMb);
      growth['Redis used_memory less the stream'] = series((sample) => sample.redis.usedMb - sample.redis.streamMb);
      return growth;
    },
  };
}
