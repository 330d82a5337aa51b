/**
 * `REDIS_URL`'s grammar: one Redis, a Redis Cluster (its seed nodes), or a master watched by
 * Sentinel. The settings check the variable with it (`config/parsers.ts`); `connection.ts` connects
 * to what it names.
 */

/** A `host:port` of a Redis node or sentinel. */
export interface RedisNodeAddress {
  readonly host: string;
  readonly port: number;
}

/** What `REDIS_URL` names: one Redis, a Redis Cluster (its seed nodes), or a Sentinel-watched master. */
export type RedisTarget =
  | { readonly kind: 'single'; readonly url: string }
  | {
      readonly kind: 'cluster';
      /** Seed nodes: the client learns the rest of the cluster from any one of them. */
      readonly nodes: readonly RedisNodeAddress[];
      readonly username: string | undefined;
      readonly password: string | undefined;
      readonly tls: boolean;
    }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly RedisNodeAddress[];
      /** The name the sentinels know the master by. */
      readonly masterName: string;
      readonly db: number;
      /** The master's credentials. */
      readonly username: string | undefined;
      readonly password: string | undefined;
      /** The sentinels' own password (`?sentinelPassword=`), when they require one. */
      readonly sentinelPassword: string | undefined;
      readonly tls: boolean;
    };

const REDIS_MULTI_NODE_URL = /^(rediss?)\+(cluster|sentinel):\/\/(?:([^@/?#]*)@)?([^/?#]+)(?:\/([^?#]*))?(?:\?([^#]*))?$/;

/**
 * Reads `REDIS_URL`: `redis://` / `rediss://` for one Redis; `redis+cluster://[user:pass@]h1:p1,h2:p2`
 * for a cluster (any reachable seed suffices); `redis+sentinel://[user:pass@]s1:p1,s2:p2/<master>[/<db>]`
 * for a master watched by sentinels (`?sentinelPassword=` when the sentinels require one). The
 * `rediss+` forms use TLS. Throws a message without the password on anything else.
 */
export function parseRedisUrl(raw: string): RedisTarget {
  const shown = raw.replace(/\/\/[^@/]*@/, '//***@');
  const multi = REDIS_MULTI_NODE_URL.exec(raw);
  if (multi) {
    const [, scheme, kind, userinfo, hosts, path, query] = multi;
    const nodes = hosts!.split(',').map((part) => parseNodeAddress(part, kind === 'sentinel' ? 26_379 : 6379, shown));
    const [username, password] = parseUserinfo(userinfo);
    const tls = scheme === 'rediss';
    if (kind === 'cluster') {
      if (path) throw new Error(`a cluster has no database or master name in its URL, got "${shown}"`);
      return { kind: 'cluster', nodes, username, password, tls };
    }
    const [masterName, db, ...rest] = (path ?? '').split('/');
    if (!masterName || rest.length > 0 || (db !== undefined && db !== '' && !/^\d{1,2}$/.test(db))) {
      throw new Error(`a sentinel URL names its master: redis+sentinel://host:port,host:port/<master>[/<db>], got "${shown}"`);
    }
    const sentinelPassword = new URLSearchParams(query ?? '').get('sentinelPassword') ?? undefined;
    return { kind: 'sentinel', sentinels: nodes, masterName: decodeURIComponent(masterName), db: db ? Number(db) : 0, username, password, sentinelPassword, tls };
  }
  let protocol = '';
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new Error(`must be a redis:// or rediss:// URL, or redis+cluster://host:port,host:port, or redis+sentinel://host:port,host:port/<master>, got "${shown}"`);
  }
  return { kind: 'single', url: raw };
}

function parseNodeAddress(part: string, defaultPort: number, shown: string): RedisNodeAddress {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(part.trim());
  const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
  if (!match || port < 1 || port > 65_535) throw new Error(`"${part}" is not a host:port in "${shown}"`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

function parseUserinfo(userinfo: string | undefined): [string | undefined, string | undefined] {
  if (!userinfo) return [undefined, undefined];
  const colon = userinfo.indexOf(':');
  if (colon === -1) return [decodeURIComponent(userinfo) || undefined, undefined];
  return [decodeURIComponent(userinfo.slice(0, colon)) || undefined, decodeURIComponent(userinfo.slice(colon + 1))];
}
