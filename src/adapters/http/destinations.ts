/**
 * Which destinations outgoing requests may reach: public unicast addresses, and what the operator allows in
 * OUTBOUND_ALLOWED_HOSTS (host names, addresses or CIDR ranges, each with an optional port). Everything else
 * (loopback, private, carrier-grade NAT, link-local with the cloud metadata address, multicast, unspecified,
 * broadcast, documentation, benchmarking and other special-purpose blocks, IPv4 embedded in IPv6) is refused, so
 * that a URL given by a user cannot reach the server's own network. Pure: no resolving here.
 */
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** One entry of the allow-list. A port of null matches every port. */
export type AllowedHost =
  | { kind: 'name'; name: string; port: number | null }
  | { kind: 'range'; range: [ipaddr.IPv4 | ipaddr.IPv6, number]; port: number | null };

/**
 * True for an address a request may reach without the allow-list. ipaddr.js names the special-purpose blocks
 * (IANA's registries); on top of that IPv6 must be global unicast (2000::/3): the rest of the space is reserved,
 * and ipaddr.js counts IPv4-compatible forms such as ::7f00:1 as unicast. IPv4-mapped (::ffff:0:0/96), NAT64
 * (64:ff9b::/96, 64:ff9b:1::/48), 6to4 and Teredo are refused whatever IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (!parsed) return false;
  if (parsed.range() !== 'unicast') return false;
  if (parsed.kind() === 'ipv6') return ((parsed as ipaddr.IPv6).parts[0]! & 0xe000) === 0x2000;
  return true;
}

/** An address as node or a URL gives it (IPv6 with or without brackets or a zone), or null. */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (net.isIP(bare.replace(/%.*$/, '')) === 0) return null;
  try {
    return ipaddr.parse(bare);
  } catch {
    return null;
  }
}

/** A host name as compared: lower case, without the final dot of a fully qualified name. */
export const normalHostName = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/**
 * True when the allow-list lets a request to `hostname` (as the URL gives it) on `port` reach `address` (what it
 * resolved to; the hostname itself for a literal address).
 */
export function isAllowedDestination(
  allowed: readonly AllowedHost[],
  hostname: string,
  port: number,
  address: string,
): boolean {
  if (isPublicAddress(address)) return true;
  const name = normalHostName(hostname);
  const parsed = parseAddress(address);
  return allowed.some((entry) => {
    if (entry.port !== null && entry.port !== port) return false;
    if (entry.kind === 'name') return entry.name === name;
    if (!parsed) return false;
    const [base] = entry.range;
    // An IPv4 range also matches the IPv4-mapped form of its addresses, as a dual-stack socket reports them.
    const candidate =
      parsed.kind() === 'ipv6' && base.kind() === 'ipv4' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
        ? (parsed as ipaddr.IPv6).toIPv4Address()
        : parsed;
    return candidate.kind() === base.kind() && candidate.match(entry.range);
  });
}

/** True when some entry names this host (and port): its addresses are then the operator's to vouch for. */
export function isAllowedName(allowed: readonly AllowedHost[], hostname: string, port: number): boolean {
  const name = normalHostName(hostname);
  return allowed.some(
    (entry) => entry.kind === 'name' && entry.name === name && (entry.port === null || entry.port === port),
  );
}

/**
 * Reads OUTBOUND_ALLOWED_HOSTS: entries separated by commas or white space, each a host name, an IPv4 or IPv6
 * address, or a CIDR range, with an optional `:port` (IPv6 in brackets then: `[::1]:8080`, `[fd00::/8]:443`).
 * Throws on an entry it cannot read, so that a typo does not silently allow nothing (or too much).
 */
export function parseAllowedHosts(text: string | undefined): AllowedHost[] {
  const entries = (text ?? '').split(/[\s,]+/).filter(Boolean);
  return entries.map((entry) => {
    const parsed = parseAllowedHost(entry);
    if (!parsed) throw new Error(`"${entry}" is not a host name, address or CIDR range with an optional :port`);
    return parsed;
  });
}

function parseAllowedHost(entry: string): AllowedHost | null {
  let host = entry;
  let port: number | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2] === undefined ? null : Number(bracketed[2]);
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    const at = entry.lastIndexOf(':');
    if (!/^\d+$/.test(entry.slice(at + 1))) return null;
    host = entry.slice(0, at);
    port = Number(entry.slice(at + 1));
  }
  if (port !== null && !(port >= 1 && port <= 65535)) return null;
  if (host.includes('/')) {
    const [address, bits] = host.split('/');
    if (!address || net.isIP(address) === 0 || !/^\d+$/.test(bits ?? '')) return null;
    try {
      return { kind: 'range', range: ipaddr.parseCIDR(host), port };
    } catch {
      return null;
    }
  }
  if (net.isIP(host) !== 0) {
    const address = ipaddr.parse(host);
    return { kind: 'range', range: [address, address.kind() === 'ipv4' ? 32 : 128], port };
  }
  // A name as a URL would carry it: letters, digits, hyphens and dots (the WHATWG parser lower-cases it). One
  // ending in a number (127.1, 0x7f000001) is an address to that parser, never a name: refused as ambiguous.
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(host)) return null;
  if (/(^|\.)(\d+|0x[0-9a-f]*)\.?$/i.test(host)) return null;
  return { kind: 'name', name: normalHostName(host), port };
}
