/**
 * Typed configuration. `loadConfig` is the only place that reads the environment; everything else receives
 * a Config. With no REDIS_URL / EVENTSTORE_URL the site runs embedded: a SQLite event store in DATA_DIR and
 * an in-process read model.
 */
import path from 'node:path';
import { parseAllowedHosts } from './adapters/http/destinations';
import type { AllowedHost } from './adapters/http/destinations';
import { API_DIALECTS } from './http/dialect';
import type { ApiDialect } from './http/dialect';
import { parseAllowedOrigins } from './http/cors';
import { compileTrustedProxies } from './http/clientAddress';
import { DEFAULT_BODY_LIMITS } from './http/requestBodies';
import type { BodyLimits } from './http/requestBodies';
import { DEFAULT_IMAGE_MAX_PIXELS } from './resources/media/sharp';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  siteUrl: string;
  siteName: string;
  siteDescription: string;
  timezone: string;
  redisUrl: string | null;
  eventStoreUrl: string | null;
  /** Key for application-password hashes; when absent one is generated and kept in DATA_DIR. */
  authSecret: string | null;
  /** Where user projections are loaded from, besides the built-in ones. */
  projectionsDir: string;
  /** Ids reserved per allocation from the shared id sequence. */
  idBlockSize: number;
  /** Bound on how long a write waits for its read-your-writes projection (ms). */
  readYourWritesTimeoutMs: number;
  /** Every Redis key starts with it, so several sites can share one server. */
  redisPrefix: string;
  /** How long the projector lease lasts unless renewed (ms): a standby projector takes over within about this. */
  projectorLeaseMs: number;
  /** /readyz fails while the read model trails the log by more than this (seconds). */
  readyMaxLagSeconds: number;
  /**
   * Which of the two described sites this is (SITE_INSTANCE): `second` adds the `contact-form/v1` namespace and the
   * writable `ext-disabled` status (docs/second-instance.md).
   */
  instance: SiteInstance;
  /** Most answers the shared response cache keeps (RESPONSE_CACHE_ENTRIES); 0 disables it. */
  responseCacheEntries: number;
  /** Most bytes of answers it keeps (RESPONSE_CACHE_BYTES); 0 disables it. */
  responseCacheBytes: number;
  /** Destinations outgoing HTTP may reach besides public addresses (OUTBOUND_ALLOWED_HOSTS). */
  outboundAllowedHosts: AllowedHost[];
  /** Which API root the site advertises (API_DIALECT): `core` (the site root) or `wordpress` (`/wp-json/`). */
  apiDialect: ApiDialect;
  /** Origins allowed to read answers cross-origin (CORS_ALLOWED_ORIGINS); null for any origin. */
  corsAllowedOrigins: string[] | null;
  /**
   * Proxies whose `X-Forwarded-For` is believed (TRUSTED_PROXIES: addresses and CIDRs, comma-separated); none by
   * default, so the client is the socket's peer (src/http/clientAddress.ts).
   */
  trustedProxies: string[];
  /** Limits on request bodies (JSON_BODY_MAX_BYTES, FORM_BODY_MAX_BYTES, UPLOAD_MAX_BYTES, ANONYMOUS_BODY_MAX_BYTES, BODIES_IN_FLIGHT, ANONYMOUS_BODIES_IN_FLIGHT). */
  bodyLimits: BodyLimits;
  /** Most pixels of an image decoded for sub-sizes and edits (IMAGE_MAX_PIXELS). */
  imageMaxPixels: number;
  /** Where the block patterns offered to the block editor are read from (BLOCK_PATTERNS_DIR); null for none. */
  blockPatternsDir: string | null;
}

export const SITE_INSTANCES = ['first', 'second'] as const;
export type SiteInstance = (typeof SITE_INSTANCES)[number];

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const port = integer(env.PORT, 8080, 'PORT');
  const host = env.HOST || '127.0.0.1';
  const timezone = env.SITE_TIMEZONE || 'UTC';
  if (!isTimeZone(timezone)) throw new ConfigError(`SITE_TIMEZONE "${timezone}" is not an IANA time zone`);
  const siteUrl = (env.SITE_URL || `http://${host}:${port}`).replace(/\/+$/, '');
  return {
    port,
    host,
    dataDir: path.resolve(cwd, env.DATA_DIR || './data'),
    siteUrl,
    siteName: env.SITE_NAME ?? 'palimpsest',
    siteDescription: env.SITE_DESCRIPTION ?? '',
    timezone,
    redisUrl: env.REDIS_URL || null,
    eventStoreUrl: env.EVENTSTORE_URL || null,
    authSecret: env.AUTH_SECRET || null,
    projectionsDir: path.resolve(cwd, env.PROJECTIONS_DIR || './projections'),
    idBlockSize: integer(env.ID_BLOCK_SIZE, 20, 'ID_BLOCK_SIZE'),
    readYourWritesTimeoutMs: integer(env.READ_YOUR_WRITES_TIMEOUT_MS, 5000, 'READ_YOUR_WRITES_TIMEOUT_MS'),
    redisPrefix: env.REDIS_PREFIX || 'palimpsest:',
    projectorLeaseMs: Math.max(300, integer(env.PROJECTOR_LEASE_MS, 10_000, 'PROJECTOR_LEASE_MS')),
    readyMaxLagSeconds: integer(env.READY_MAX_LAG_SECONDS, 30, 'READY_MAX_LAG_SECONDS'),
    instance: siteInstance(env.SITE_INSTANCE),
    responseCacheEntries: integer(env.RESPONSE_CACHE_ENTRIES, 2_000, 'RESPONSE_CACHE_ENTRIES'),
    responseCacheBytes: integer(env.RESPONSE_CACHE_BYTES, 64 * 1024 * 1024, 'RESPONSE_CACHE_BYTES'),
    outboundAllowedHosts: allowedHosts(env.OUTBOUND_ALLOWED_HOSTS),
    apiDialect: apiDialect(env.API_DIALECT),
    corsAllowedOrigins: allowedOrigins(env.CORS_ALLOWED_ORIGINS),
    trustedProxies: trustedProxies(env.TRUSTED_PROXIES),
    bodyLimits: {
      json: integer(env.JSON_BODY_MAX_BYTES, DEFAULT_BODY_LIMITS.json, 'JSON_BODY_MAX_BYTES'),
      form: integer(env.FORM_BODY_MAX_BYTES, DEFAULT_BODY_LIMITS.form, 'FORM_BODY_MAX_BYTES'),
      upload: integer(env.UPLOAD_MAX_BYTES, DEFAULT_BODY_LIMITS.upload, 'UPLOAD_MAX_BYTES'),
      anonymous: integer(env.ANONYMOUS_BODY_MAX_BYTES, DEFAULT_BODY_LIMITS.anonymous, 'ANONYMOUS_BODY_MAX_BYTES'),
      inFlight: Math.max(1, integer(env.BODIES_IN_FLIGHT, DEFAULT_BODY_LIMITS.inFlight, 'BODIES_IN_FLIGHT')),
      anonymousInFlight: integer(env.ANONYMOUS_BODIES_IN_FLIGHT, DEFAULT_BODY_LIMITS.anonymousInFlight, 'ANONYMOUS_BODIES_IN_FLIGHT'),
    },
    imageMaxPixels: Math.max(1, integer(env.IMAGE_MAX_PIXELS, DEFAULT_IMAGE_MAX_PIXELS, 'IMAGE_MAX_PIXELS')),
    blockPatternsDir: env.BLOCK_PATTERNS_DIR ? path.resolve(cwd, env.BLOCK_PATTERNS_DIR) : null,
  };
}

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

function allowedHosts(value: string | undefined): AllowedHost[] {
  try {
    return parseAllowedHosts(value);
  } catch (error) {
    throw new ConfigError(`OUTBOUND_ALLOWED_HOSTS: ${(error as Error).message}`);
  }
}

function trustedProxies(value: string | undefined): string[] {
  const entries = (value ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
  try {
    compileTrustedProxies(entries);
  } catch (error) {
    throw new ConfigError(`TRUSTED_PROXIES: ${(error as Error).message} (give addresses or CIDRs, comma-separated)`);
  }
  return entries;
}

function siteInstance(value: string | undefined): SiteInstance {
  if (value === undefined || value === '') return 'first';
  if (!(SITE_INSTANCES as readonly string[]).includes(value)) throw new ConfigError(`SITE_INSTANCE must be "first" or "second", got "${value}"`);
  return value as SiteInstance;
}

function apiDialect(value: string | undefined): ApiDialect {
  if (value === undefined || value === '') return 'core';
  if (!(API_DIALECTS as readonly string[]).includes(value)) throw new ConfigError(`API_DIALECT must be "core" or "wordpress", got "${value}"`);
  return value as ApiDialect;
}

function allowedOrigins(value: string | undefined): string[] | null {
  const parsed = parseAllowedOrigins(value);
  if ('error' in parsed) throw new ConfigError(`CORS_ALLOWED_ORIGINS: ${parsed.error}`);
  return parsed.origins;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
