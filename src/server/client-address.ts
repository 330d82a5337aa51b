/**
 * `createClientAddressResolver`: the address a request came from, as the per-address budgets see
 * it. The socket's peer, unless that peer is a configured trusted proxy (`TRUSTED_PROXIES`): then
 * `X-Forwarded-For` is read from the right, past every trusted proxy, and the first address no
 * trusted proxy vouches for is the client. Without trusted proxies the header is ignored: anyone
 * can write it.
 */
import { BlockList, isIP } from 'node:net';

/** Resolves a request's client address from its socket peer and its `X-Forwarded-For`. */
export type ClientAddressResolver = (remoteAddress: string | undefined, forwardedFor: string | null | undefined) => string | undefined;

/** `proxies`: addresses (`10.0.0.7`) or CIDR ranges (`10.0.0.0/8`, `fd00::/8`). Throws on anything else. */
export function createClientAddressResolver(proxies: readonly string[]): ClientAddressResolver {
  const trusted = trustList(proxies);
  return (remoteAddress, forwardedFor) => {
    const peer = remoteAddress === undefined ? undefined : plainAddress(remoteAddress);
    if (trusted === null || peer === undefined || !isTrusted(trusted, peer) || !forwardedFor) return peer;
    const hops = forwardedFor.split(',').map((hop) => plainAddress(hop.trim()));
    for (let index = hops.length - 1; index >= 0; index--) {
      const hop = hops[index]!;
      // The first hop no trusted proxy wrote (an address or not) is the client's own word.
      if (!isTrusted(trusted, hop)) return hop;
    }
    // Every hop is a trusted proxy: the leftmost is as far as the chain goes.
    return hops[0] ?? peer;
  };
}

/** Checks a list of trusted proxies, for the configuration to fail fast. */
export function parseTrustedProxy(entry: string): boolean {
  try {
    trustList([entry]);
    return true;
  } catch {
    return false;
  }
}

function trustList(proxies: readonly string[]): BlockList | null {
  if (proxies.length === 0) return null;
  const list = new BlockList();
  for (const entry of proxies) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    if (family === 0) throw new TypeError(`not an IP address or CIDR range: ${entry}`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const bits = Number(prefix);
    if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128)) throw new TypeError(`not a CIDR range: ${entry}`);
    list.addSubnet(address, bits, type);
  }
  return list;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`) as the IPv4 address it is. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
