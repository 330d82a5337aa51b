/**
 * `createCredentialPlaces`: the places (open subscriptions, open live queries) each credential
 * holds, under one cap. Without Redis the count is this replica's. With Redis it is the fleet's,
 * so N replicas allow the cap, not N times it:
 *
 * - Each credential has one hash per kind of place, `gw:v1:places:{<key>}:<kind>` (`<key>` the
 *   caller's key, a digest carrying no credential; the hash tag keeps a credential's keys on one
 *   node of a cluster). Its fields are replica ids; each value is `<count>:<expiresAtMs>`, what
 *   that replica holds and until when the count stands unrenewed (`JOB_LEASE_MS`, the lease of
 *   a replica's jobs too).
 * - One script takes a place: it drops the fields whose time passed, sums the others' counts,
 *   and writes this replica's new count only when the sum stays within the cap. Giving a place
 *   back writes the count again. Every write is this replica's whole count, never an increment,
 *   so a write lost to an outage is mended by the next one.
 * - Each replica writes its counts again every `JOB_LEASE_MS / 3`, and at once when Redis is back
 *   after an outage. A replica that dies stops renewing, and its places are free again within
 *   `JOB_LEASE_MS`; one that stops gives them all back at once.
 * - Redis unreachable: the place is granted under this replica's own count, which never passes the
 *   cap, so service goes on with the per-replica cap as the floor (at worst N times the cap while
 *   Redis is away) rather than refusing every subscription for want of Redis.
 *
 * The writes of one credential's places go to Redis one at a time, each with the count at the
 * moment it is sent: two in flight at once could each be answered for a count the other changed.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { guardRedis, type RedisConnection } from '../redis/connection.js';
import { addCount, countOf } from '../utils/counts.js';

/**
 * The key of a credential's places of one kind. `v1`: the format of the key and of its fields'
 * values; a change to either takes a new version, so replicas of two releases never misread each
 * other's counts during a rolling upgrade (each counts apart, at worst twice the cap meanwhile).
 */
export const placesKey = (kind: string, credential: string): string => `gw:v1:places:{${credential}}:${kind}`;

/**
 * KEYS[1]: a credential's places. ARGV: this replica, the places it holds after this write, the
 * cap (0: write without checking), the lease (ms). Returns `{written, placesOfOtherReplicas}`.
 * Redis' own clock times the leases, so the replicas' clocks need not agree.
 */
const WRITE_PLACES_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local mine = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local others = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if fields[i] ~= ARGV[1] then
    local count, expires = string.match(fields[i + 1], '^(%d+):(%d+)$')
    if count == nil or tonumber(expires) <= now then
      redis.call('HDEL', KEYS[1], fields[i])
    else
      others = others + tonumber(count)
    end
  end
end
if cap > 0 and others + mine > cap then return {0, others} end
if mine > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%d:%d', mine, now + tonumber(ARGV[4])))
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return {1, others}`;

/** Where the fleet's counts are kept (`REDIS_URL`), and how long a replica's count stands. */
export interface FleetOptions {
  connection: RedisConnection;
  /** How long a replica's count stands unrenewed (`JOB_LEASE_MS`): a replica that died gives its places back after this. */
  jobLeaseMs: number;
  logger: Logger;
}

export interface FleetPlacesOptions extends FleetOptions {
  /** What is counted, named in the key: `subscriptions`, `live`. */
  kind: string;
}

export interface CredentialPlacesOptions {
  /** Places one credential may hold at once. */
  cap: number;
  /** With Redis: the places of every replica count. Unset: this replica's alone. */
  fleet?: FleetPlacesOptions | undefined;
}

export interface CredentialPlaces {
  /**
   * Takes a place for credential `key`: null when taken, or (at the cap) how many places the
   * credential holds already, over the fleet with Redis. `give` gives it back.
   */
  take(key: string): Promise<number | null>;
  /** Gives back a place `take` gave. */
  give(key: string): void;
  /** Stops renewing, and removes this replica's counts from Redis. */
  close(): Promise<void>;
}

export function createCredentialPlaces(options: CredentialPlacesOptions): CredentialPlaces {
  const { cap } = options;
  /** Places this replica holds, by credential. */
  const held = new Map<string, number>();
  /** Takes started and not yet answered, by credential: they count against this replica's cap. */
  const taking = new Map<string, number>();
  const fleet = options.fleet === undefined ? undefined : createFleetWrites(options.fleet, held);

  return {
    async take(key) {
      const ofReplica = countOf(held, key) + countOf(taking, key);
      if (ofReplica >= cap) return ofReplica;
      if (fleet === undefined) {
        addCount(held, key, 1);
        return null;
      }
      addCount(taking, key, 1);
      try {
        const others = await fleet.claim(key, cap);
        return others === null ? null : others + countOf(held, key);
      } finally {
        addCount(taking, key, -1);
      }
    },
    give(key) {
      addCount(held, key, -1);
      fleet?.write(key);
    },
    close: async () => fleet?.close(),
  };
}

interface FleetWrites {
  /**
   * Writes one more place of `key` when the fleet stays within `cap`, and counts it in `held`
   * before the next write of `key` is sent: null when written, else the other replicas' places.
   */
  claim(key: string, cap: number): Promise<number | null>;
  /** Writes this replica's count of `key` as it is when the write is sent. */
  write(key: string): void;
  close(): Promise<void>;
}

function createFleetWrites(options: FleetPlacesOptions, held: Map<string, number>): FleetWrites {
  const { connection, kind, jobLeaseMs: leaseMs, logger } = options;
  const replica = randomBytes(8).toString('hex');
  /** The last write queued of each credential: the next one goes after it. */
  const queues = new Map<string, Promise<unknown>>();
  let failing = false;

  /** Runs `write` once every earlier write of `key` is answered. */
  function enqueue<T>(key: string, write: () => Promise<T>): Promise<T> {
    const queued = (queues.get(key) ?? Promise.resolve()).then(write);
    const settled = queued.catch(() => undefined);
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return queued;
  }

  /** Sends this replica's count of `key` (plus `adding`), checked against `cap` (0: not checked). */
  async function send(key: string, adding: number, cap: number): Promise<number | null> {
    try {
      const mine = countOf(held, key) + adding;
      const reply = (await guardRedis(`write ${kind} places`, () =>
        connection.commands.eval(WRITE_PLACES_SCRIPT, 1, placesKey(kind, key), replica, String(mine), String(cap), String(leaseMs)),
      )) as [number, number];
      if (failing) logger.info({ kind }, 'places are counted over the fleet again');
      failing = false;
      return reply[0] === 1 ? null : reply[1];
    } catch (error) {
      if (!failing) logger.warn({ err: error, kind }, 'counting places in Redis failed: each replica holds its credentials to the cap on its own until it is back');
      failing = true;
      // Granted under this replica's own count; renewal writes it once Redis is back.
      return null;
    }
  }

  function renew(): void {
    if (connection.commands.status !== 'ready') return;
    for (const key of held.keys()) {
      // A write already waiting sends the count as it will be: no need for another.
      if (!queues.has(key)) void enqueue(key, () => send(key, 0, 0));
    }
  }
  const renewal = setInterval(renew, Math.max(50, Math.floor(leaseMs / 3)));
  renewal.unref();
  // Back after an outage: the counts written meanwhile never arrived, and may have expired.
  connection.commands.on('ready', renew);

  return {
    claim: (key, cap) =>
      enqueue(key, async () => {
        const others = await send(key, 1, cap);
        if (others === null) addCount(held, key, 1);
        return others;
      }),
    write(key) {
      void enqueue(key, () => send(key, 0, 0));
    },
    async close() {
      clearInterval(renewal);
      connection.commands.off('ready', renew);
      await Promise.all([...queues.values()]);
      const left = [...held.keys()];
      await Promise.all(
        left.map((key) =>
          guardRedis(`remove ${kind} places`, () => connection.commands.hdel(placesKey(kind, key), replica)).catch(() => undefined),
        ),
      );
    },
  };
}

