/**
 * Typed configuration. `loadConfig` is the only place that reads the environment; everything else receives
 * a Config. With no REDIS_URL / EVENTSTORE_URL the site runs embedded: a SQLite event store in DATA_DIR and
 * an in-process read model.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllowedHosts } from './adapters/http/destinations';
import type { AllowedHost } from './adapters/http/destinations';
import { API_DIALECTS } from './http/dialect';
import type { ApiDialect } from './http/dialect';
import { parseAllowedOrigins } from './http/cors';
import { compileTrustedProxies } from './http/clientAddress';
import { DEFAULT_BODY_LIMITS } from './http/requestBodies';
import type { BodyLimits } from './http/requestBodies';
import { DEFAULT_IMAGE_MAX_PIXELS } from './resources/media/sharp';
import { DEFAULT_COMMENT_FLOOD_SECONDS } from './resources/comments/decider';
import { LOG_LEVELS } from './logger';
import { parseCachesOff } from './caches/budget';
import type { CacheName } from './caches/budget';
import type { LogLevel } from './logger';

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
  /** Bound on how long a write waits for its read-your-writes projection, counted from the request's start (ms). */
  readYourWritesTimeoutMs: number;
  /** Longest a Redis command may take before it fails as an outage (REDIS_COMMAND_TIMEOUT_MS). */
  redisCommandTimeoutMs: number;
  /** Longest connecting to Redis may take before the attempt counts as failed (REDIS_CONNECT_TIMEOUT_MS). */
  redisConnectTimeoutMs: number;
  /**
   * Longest a call to the event store may take before it fails as an outage (EVENT_STORE_TIMEOUT_MS): an
   * EventStoreDB call (an append with its retries), or SQLite's wait for another process's write lock.
   */
  eventStoreTimeoutMs: number;
  /** Longest a stop (SIGTERM, SIGINT) may take before the process exits anyway (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  /** Every Redis key starts with it, so several sites can share one server. */
  redisPrefix: string;
  /** How long the projector lease lasts unless renewed (ms): a standby projector takes over within about this. */
  projectorLeaseMs: number;
  /** /readyz fails while the read model trails the log by more than this (seconds). */
  readyMaxLagSeconds: number;
  /** How often the read model is judged against the event store (its epoch), in ms. */
  readinessCheckMs: number;
  /**
   * Which of the two described sites this is (SITE_INSTANCE): `second` adds the `contact-form/v1` namespace and the
   * writable `ext-disabled` status (docs/second-instance.md).
   */
  instance: SiteInstance;
  /**
   * What the read-side caches may take together, in MiB (CACHE_MEMORY_MB; null: the engine's default,
   * src/caches/budget.ts), and the caches switched off (CACHES_OFF).
   */
  caches: { totalMiB: number | null; off: CacheName[] };
  /** Destinations outgoing HTTP may reach besides public addresses (OUTBOUND_ALLOWED_HOSTS). */
  outboundAllowedHosts: AllowedHost[];
  /** The least severe log level written (LOG_LEVEL): fatal, error, warn, info (the default), debug, trace or silent. */
  logLevel: LogLevel;
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
  /** Seconds a commenter without moderate_comments waits between comments (COMMENT_FLOOD_SECONDS); 0: no flood check. */
  commentFloodSeconds: number;
  /** How long an Idempotency-Key is kept after its request (IDEMPOTENCY_KEY_TTL_SECONDS, in ms here). */
  idempotencyTtlMs: number;
  /** Audit streams (docs/audit.md): heartbeat (AUDIT_STREAM_HEARTBEAT_SECONDS, in ms here), per user (AUDIT_STREAMS_PER_USER), in all (AUDIT_STREAMS_MAX). */
  auditStreams: { heartbeatMs: number; perUser: number; total: number };
  /** Webhooks (docs/webhooks.md): hosts deliveries may reach besides public addresses (WEBHOOK_ALLOWED_HOSTS), and how long a delivery is retried before it is dead-lettered (WEBHOOK_DEAD_LETTER_AFTER_SECONDS, in ms here). */
  webhooks: { allowedHosts: AllowedHost[]; deadLetterAfterMs: number };
  /** Where uploaded files are kept (BLOB_STORE): a directory, or an S3 bucket shared by every node. */
  blobStore: BlobStoreConfig;
  /** Where the block patterns offered to the block editor are read from (BLOCK_PATTERNS_DIR); null for none. */
  blockPatternsDir: string | null;
}

/**
 * `file:///path` (the default: DATA_DIR/uploads), or `s3://bucket/prefix` with the AWS SDK's standard settings:
 * AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL) for an S3-compatible store, AWS_REGION, credentials from the default
 * provider chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance or task role).
 */
export type BlobStoreConfig =
  | { kind: 'file'; root: string }
  | { kind: 's3'; bucket: string; prefix: string; endpoint: string | null; region: string | null };

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
    redisCommandTimeoutMs: Math.max(1, integer(env.REDIS_COMMAND_TIMEOUT_MS, 2000, 'REDIS_COMMAND_TIMEOUT_MS')),
    redisConnectTimeoutMs: Math.max(1, integer(env.REDIS_CONNECT_TIMEOUT_MS, 2000, 'REDIS_CONNECT_TIMEOUT_MS')),
    eventStoreTimeoutMs: Math.max(1, integer(env.EVENT_STORE_TIMEOUT_MS, 5000, 'EVENT_STORE_TIMEOUT_MS')),
    // Below Docker's default stop grace (10 s), so the process ends itself, saying why, before it is killed.
    shutdownTimeoutMs: Math.max(1, integer(env.SHUTDOWN_TIMEOUT_MS, 8000, 'SHUTDOWN_TIMEOUT_MS')),
    redisPrefix: env.REDIS_PREFIX || 'palimpsest:',
    projectorLeaseMs: Math.max(300, integer(env.PROJECTOR_LEASE_MS, 10_000, 'PROJECTOR_LEASE_MS')),
    readyMaxLagSeconds: integer(env.READY_MAX_LAG_SECONDS, 30, 'READY_MAX_LAG_SECONDS'),
    readinessCheckMs: Math.max(50, integer(env.READINESS_CHECK_MS, 1_000, 'READINESS_CHECK_MS')),
    instance: siteInstance(env.SITE_INSTANCE),
    caches: caches(env),
    outboundAllowedHosts: allowedHosts(env.OUTBOUND_ALLOWED_HOSTS),
    apiDialect: apiDialect(env.API_DIALECT),
    logLevel: logLevel(env.LOG_LEVEL),
    corsAllowedOrigins: allowedOrigins(env.CORS_ALLOWED_ORIGINS),
    trustedProxies: trustedProxies(env.TRUSTED_PROXIES),
    bodyLimits: {
      json: integer(env.JSON_BODY_MAX_BYTES, DEFAULT_BODY_LIMITS.json, 'JSON_BODY_MAX_BYTES'),
      form: integer(env.FORM_BODY_MAX_BYTES, DEFAULT_BODY_LIMITS.form, 'FORM_BODY_MAX_BYTES'),
      upload: integer(env.UPLOAD_MAX_BYTES, DEFAULT_BODY_LIMITS.upload, 'UPLOAD_MAX_BYTES'),
      anonymous: integer(env.ANONYMOUS_BODY_MAX_BYTES, DEFAULT_BODY_LIMITS.anonymous, 'ANONYMOUS_BODY_MAX_BYTES'),
      inFlight: Math.max(1, integer(env.BODIES_IN_FLIGHT, DEFAULT_BODY_LIMITS.inFlight, 'BODIES_IN_FLIGHT')),
      anonymousInFlight: integer(
        env.ANONYMOUS_BODIES_IN_FLIGHT,
        DEFAULT_BODY_LIMITS.anonymousInFlight,
        'ANONYMOUS_BODIES_IN_FLIGHT',
      ),
    },
    imageMaxPixels: Math.max(1, integer(env.IMAGE_MAX_PIXELS, DEFAULT_IMAGE_MAX_PIXELS, 'IMAGE_MAX_PIXELS')),
    commentFloodSeconds: integer(env.COMMENT_FLOOD_SECONDS, DEFAULT_COMMENT_FLOOD_SECONDS, 'COMMENT_FLOOD_SECONDS'),
    idempotencyTtlMs:
      Math.max(1, integer(env.IDEMPOTENCY_KEY_TTL_SECONDS, 86_400, 'IDEMPOTENCY_KEY_TTL_SECONDS')) * 1000,
    auditStreams: {
      heartbeatMs:
        Math.max(1, integer(env.AUDIT_STREAM_HEARTBEAT_SECONDS, 15, 'AUDIT_STREAM_HEARTBEAT_SECONDS')) * 1000,
      perUser: integer(env.AUDIT_STREAMS_PER_USER, 4, 'AUDIT_STREAMS_PER_USER'),
      total: integer(env.AUDIT_STREAMS_MAX, 100, 'AUDIT_STREAMS_MAX'),
    },
    webhooks: {
      allowedHosts: allowedHosts(env.WEBHOOK_ALLOWED_HOSTS, 'WEBHOOK_ALLOWED_HOSTS'),
      deadLetterAfterMs:
        Math.max(1, integer(env.WEBHOOK_DEAD_LETTER_AFTER_SECONDS, 259_200, 'WEBHOOK_DEAD_LETTER_AFTER_SECONDS')) *
        1000,
    },
    blobStore: blobStore(env, path.resolve(cwd, env.DATA_DIR || './data')),
    blockPatternsDir: env.BLOCK_PATTERNS_DIR ? path.resolve(cwd, env.BLOCK_PATTERNS_DIR) : null,
  };
}

/** S3 bucket names: 3–63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function blobStore(env: NodeJS.ProcessEnv, dataDir: string): BlobStoreConfig {
  const value = env.BLOB_STORE ?? '';
  if (value === '') return { kind: 'file', root: path.join(dataDir, 'uploads') };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`BLOB_STORE must be file:///path or s3://bucket/prefix, got "${value}"`);
  }
  if (url.protocol === 'file:') {
    if (url.host !== '' || url.search !== '' || url.hash !== '')
      throw new ConfigError(`BLOB_STORE: a file URL names a local directory, file:///path, got "${value}"`);
    return { kind: 'file', root: fileURLToPath(url) };
  }
  if (url.protocol === 's3:') {
    const bucket = url.hostname;
    if (!BUCKET.test(bucket) || url.port !== '' || url.username !== '' || url.password !== '')
      throw new ConfigError(`BLOB_STORE: "${bucket}" is not an S3 bucket name (s3://bucket/prefix)`);
    if (url.search !== '' || url.hash !== '')
      throw new ConfigError(`BLOB_STORE: s3://bucket/prefix takes no query or fragment, got "${value}"`);
    // As written (the URL parser would resolve them away): a "." or ".." segment is a mistake, not a path to follow.
    const written = value.replace(/^s3:\/\/[^/]*/i, '').split('/');
    const segments = decodeURIComponent(url.pathname)
      .split('/')
      .filter((segment) => segment !== '');
    if (written.some((segment) => segment === '.' || segment === '..'))
      throw new ConfigError(`BLOB_STORE: the key prefix may not contain "." or ".." segments, got "${value}"`);
    const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || null;
    // An S3-compatible store mostly ignores the region, but the SDK needs one to sign with.
    const region = env.AWS_REGION || (endpoint ? 'us-east-1' : null);
    return { kind: 's3', bucket, prefix: segments.length > 0 ? `${segments.join('/')}/` : '', endpoint, region };
  }
  throw new ConfigError(`BLOB_STORE must be file:///path or s3://bucket/prefix, got "${value}"`);
}

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** CACHE_MEMORY_MB and CACHES_OFF; the response cache's own bounds of earlier versions are refused, not ignored. */
/** The smallest cache budget, in MiB: below it some caches would be given no entry at all. */
const MIN_CACHE_MIB = 8;

function caches(env: NodeJS.ProcessEnv): Config['caches'] {
  for (const replaced of ['RESPONSE_CACHE_ENTRIES', 'RESPONSE_CACHE_BYTES'])
    if (env[replaced] !== undefined && env[replaced] !== '')
      throw new ConfigError(
        `${replaced} is no longer read: CACHE_MEMORY_MB bounds every cache, the response cache included, and CACHES_OFF=responses turns it off`,
      );
  const value = env.CACHE_MEMORY_MB;
  let totalMiB: number | null = null;
  if (value !== undefined && value !== '') {
    // A whole number of MiB: a byte count given by mistake (268435456) would otherwise leave every cache unbounded,
    // and a fraction would switch small caches off without a word.
    const machineMiB = Math.floor(os.totalmem() / (1024 * 1024));
    totalMiB = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
    if (!(totalMiB >= MIN_CACHE_MIB && totalMiB <= machineMiB))
      throw new ConfigError(
        `CACHE_MEMORY_MB must be a whole number of MiB from ${MIN_CACHE_MIB} to this machine's ${machineMiB}, got "${value}"`,
      );
  }
  try {
    return { totalMiB, off: parseCachesOff(env.CACHES_OFF) };
  } catch (error) {
    throw new ConfigError(`CACHES_OFF: ${(error as Error).message}`);
  }
}

function allowedHosts(value: string | undefined, name = 'OUTBOUND_ALLOWED_HOSTS'): AllowedHost[] {
  try {
    return parseAllowedHosts(value);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
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
  if (!(SITE_INSTANCES as readonly string[]).includes(value))
    throw new ConfigError(`SITE_INSTANCE must be "first" or "second", got "${value}"`);
  return value as SiteInstance;
}

function logLevel(value: string | undefined): LogLevel {
  if (value === undefined || value === '') return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return value as LogLevel;
}

function apiDialect(value: string | undefined): ApiDialect {
  if (value === undefined || value === '') return 'core';
  if (!(API_DIALECTS as readonly string[]).includes(value))
    throw new ConfigError(`API_DIALECT must be "core" or "wordpress", got "${value}"`);
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
