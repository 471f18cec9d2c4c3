/**
 * Whether a webhook's URL may be delivered to, judged when the webhook is made or changed: an http(s) URL without
 * credentials, whose host, when an address (or `localhost`), is public or allowed by WEBHOOK_ALLOWED_HOSTS. A host
 * name is judged again at every delivery by the outbound client, before connecting and at connect time (its DNS
 * answer may change), so a name that resolves to the server's own network is refused then.
 */
import net from 'node:net';
import { isAllowedDestination, isAllowedName } from '../adapters/http/destinations';
import type { AllowedHost } from '../adapters/http/destinations';

/** Why the URL is refused, for the client; null when it is accepted. */
export function refusedWebhookUrl(text: string, allowed: readonly AllowedHost[]): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url is not a URL.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must be an http or https URL.';
  if (url.username !== '' || url.password !== '') return 'url must not carry a user name or password.';
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (isAllowedName(allowed, hostname, port)) return null;
  const loopbackName = hostname === 'localhost' || hostname.endsWith('.localhost');
  const address = net.isIP(hostname) !== 0 ? hostname : loopbackName ? '127.0.0.1' : null;
  if (address !== null && !isAllowedDestination(allowed, hostname, port, address)) {
    return `${url.host} is not a public address; add it to WEBHOOK_ALLOWED_HOSTS to deliver to it.`;
  }
  return null;
}
