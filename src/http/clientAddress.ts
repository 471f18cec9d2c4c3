/**
 * The client's address, as far as it can be known: the socket's peer, unless that peer is a proxy named in
 * TRUSTED_PROXIES, in which case `X-Forwarded-For` is read from the right, past every trusted hop, and the first
 * untrusted entry is the client. Entries to its left were written by the client itself (or by proxies nobody
 * vouches for) and are never believed: a client can put anything there, and the sign-in throttle keys on this
 * address. proxy-addr (Express's implementation) does the walk and the CIDR matching.
 */
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import proxyaddr from 'proxy-addr';

/** Whether the hop at `address` (the `index`-th from the socket) is a proxy we trust to report its client. */
export type ProxyTrust = (address: string, index: number) => boolean;

/**
 * Compiles TRUSTED_PROXIES (addresses, CIDRs, `address/netmask`, or proxy-addr's names `loopback`, `linklocal`,
 * `uniquelocal`); throws a TypeError naming the first entry that is none of these.
 */
export function compileTrustedProxies(entries: readonly string[]): ProxyTrust | null {
  return entries.length === 0 ? null : proxyaddr.compile([...entries]);
}

/** IPv4 clients of a dual-stack socket show as `::ffff:a.b.c.d`; they are the same address. */
export const plainAddress = (ip: string): string => ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/** The client's address of a request; `trust` null means no proxy is trusted (the socket's peer is the client). */
export function clientAddressOf(req: IncomingMessage, trust: ProxyTrust | null): string {
  const address = trust === null ? req.socket.remoteAddress : proxyaddr(req, trust);
  return plainAddress(address ?? '');
}

const ADDRESS = Symbol('clientAddress');

/**
 * Makes `ctx.ip` (and `ctx.request.ip`) of this app the client's address as above, worked out once per request and
 * only when read. The app must be created with `proxy: false`, so koa itself never reads `X-Forwarded-For`.
 */
export function serveClientAddress(koa: Koa, trust: ProxyTrust | null): void {
  Object.defineProperty(koa.request, 'ip', {
    configurable: true,
    get(this: Koa.Request & { [ADDRESS]?: string }): string {
      return (this[ADDRESS] ??= clientAddressOf(this.req, trust));
    },
  });
}
