/** How webhooks are delivered (WEBHOOK_* in src/config.ts; tests shorten the waits). */
import type { AllowedHost } from '../adapters/http/destinations';
import { createOutboundHttp } from '../adapters/http/outboundClient';
import type { HttpFetcher } from '../ports/httpFetcher';
import { DEFAULT_BACKOFF } from './deliveries';
import type { BackoffPolicy } from './deliveries';

export interface WebhookSettings {
  /** Destinations deliveries may reach besides public addresses (WEBHOOK_ALLOWED_HOSTS). */
  allowedHosts: readonly AllowedHost[];
  /** How long a delivery is retried, from its first attempt, before it is dead-lettered (WEBHOOK_DEAD_LETTER_AFTER_SECONDS). */
  deadLetterAfterMs: number;
  /** The waits between attempts. */
  backoff: BackoffPolicy;
  /** Bound on one delivery (ms). */
  timeoutMs: number;
  /** How often an idle delivery worker looks at the log when it was not told of new events (ms). */
  pollMs: number;
  /** The jitter's source, in [0, 1) (Math.random when not given). */
  random?: () => number;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowedHosts: [],
  deadLetterAfterMs: 3 * 24 * 60 * 60_000,
  backoff: DEFAULT_BACKOFF,
  timeoutMs: 5_000,
  pollMs: 1_000,
};

/** The outbound client deliveries go through: the allow-list, no redirect followed, a delivery's time bound. */
export function createWebhookHttp(settings: Pick<WebhookSettings, 'allowedHosts' | 'timeoutMs'>): HttpFetcher {
  return createOutboundHttp({
    allowedHosts: settings.allowedHosts,
    maxRedirects: 0,
    timeoutMs: settings.timeoutMs,
    userAgent: 'palimpsest-webhooks',
  });
}
