/**
 * A whole site on in-memory adapters (or any given ones), served by the real app on an ephemeral port, for
 * black-box HTTP tests. Requests go through `app.callback()` exactly as in production.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSite } from '../../src/site';
import type { Coordination, Site, SiteAdapters, SiteSettings } from '../../src/site';
import type { BlobStore } from '../../src/ports/blobStore';
import { createApp } from '../../src/app';
import { answerClientErrors } from '../../src/http/clientErrors';
import { createMemoryEventStore } from '../../src/adapters/memory/eventStore';
import { createMemoryBlobStore } from '../../src/adapters/memory/blobStore';
import { createMemoryReadModel } from '../../src/readModel/memory/readModel';
import { manualClock } from '../../src/ports/clock';
import type { EventStore } from '../../src/ports/eventStore';
import type { ReadModel } from '../../src/ports/readModel';
import type { Role } from '../../src/access/capabilities';
import type { Projection } from '../../src/projection/projection';
import type { HttpFetcher } from '../../src/ports/httpFetcher';
import type { Mailer } from '../../src/ports/mailer';
import type { SiteInstance } from '../../src/config';
import { createApplicationPassword, registerUser } from '../../src/resources/users/operations';
import { userAccounts } from '../../src/resources/users/accounts';
import { contentReactions } from '../../src/resources/contentReactions';
import { instanceNamed } from '../../src/instances/index';
import { DEFAULT_WEBHOOK_SETTINGS, createWebhookHttp } from '../../src/webhooks/settings';
import { CacheBudget } from '../../src/caches/budget';

export interface TestUser {
  id: number;
  login: string;
  password: string;
  auth: string;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** A urlencoded form body instead of JSON. */
  form?: Record<string, string>;
  /** Sent as is, with the given content type. */
  raw?: { data: string | Buffer; type: string };
  as?: TestUser | null;
  headers?: Record<string, string>;
}

export interface TestSite {
  site: Site;
  url: string;
  clock: ReturnType<typeof manualClock>;
  /** The projector's start: resolved before the site serves, unless `serveWhileStarting`. */
  projectorStarted: Promise<void>;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  createUser(login: string, role: Role): Promise<TestUser>;
  close(): Promise<void>;
}

export interface TestSiteOptions {
  timezone?: string;
  store?: EventStore;
  readModel?: ReadModel;
  now?: number;
  siteUrl?: string;
  /** Every projection the site runs (default: the built-in ones). */
  projections?: readonly Projection[];
  /** Outgoing HTTP (default: a fetcher that refuses, so no test reaches the network). */
  http?: HttpFetcher;
  /** Which described site to be (default `first`); `second` adds the contact-form namespace and `ext-disabled`. */
  instance?: SiteInstance;
  /** Outgoing mail (default: a mailer that accepts and sends nothing). */
  mailer?: Mailer;
  /** The shared response cache's bounds (default: the cache budget's, src/caches/budget.ts); 0 disables it. */
  responseCache?: { entries?: number; bytes?: number };
  /** The whole cache budget (default: the engine's default budget, or one with `responseCache`'s bounds). */
  caches?: CacheBudget;
  /** Which API root the site advertises (default `core`). */
  apiDialect?: 'core' | 'wordpress';
  /** Origins allowed to read answers cross-origin (default: any). */
  corsAllowedOrigins?: readonly string[] | null;
  /** How long a write waits for its read-your-writes (default 5 s, as in production). */
  readYourWritesTimeoutMs?: number;
  /** Proxies whose X-Forwarded-For the site believes (default none: the client is the socket's peer, 127.0.0.1). */
  trustedProxies?: readonly string[];
  /** Limits on request bodies (default: the site's). */
  bodyLimits?: SiteSettings['bodyLimits'];
  /** Where uploads are kept (default: in memory). */
  blobs?: BlobStore;
  /** Most pixels of an image decoded (default: the site's). */
  imageMaxPixels?: number;
  /** Serve at once, with the projector still starting (default: serve once it has caught up); see `projectorStarted`. */
  serveWhileStarting?: boolean;
  /** Seconds between two comments of a non-moderator (default: the site's, 15); 0 turns the flood check off. */
  commentFloodSeconds?: number;
  /**
   * Processes sharing the read model (Redis): the projector then runs under the lease, as `site.startProjector()` runs
   * it, unless `apiOnly` (an API node: `serve --no-projector`).
   */
  coordination?: Coordination;
  apiOnly?: boolean;
  /** How often the read model is judged against the store (default: the site's, 1 s). */
  readinessCheckMs?: number;
  /** The block patterns offered to the block editor (default: none). */
  blockPatterns?: SiteSettings['blockPatterns'];
  /** Audit streams' heartbeat and bounds (default: the site's, 15 s, 4 per user, 100 in all). */
  auditStreams?: { heartbeatMs?: number; perUser?: number; total?: number };
  /** Webhook deliveries: allow-list, waits, dead-letter bound (default: the site's, with no host allowed). */
  webhooks?: SiteSettings['webhooks'];
}

/** The default outgoing HTTP of test sites: no network. */
const offline: HttpFetcher = { request: async (url) => Promise.reject(new Error(`no network in tests: ${url}`)) };

/**
 * The adapters a test site gets unless it is given others: uploads in memory, outgoing HTTP that refuses (no test
 * reaches the network), a mailer that accepts and sends nothing; and the slices' own accounts and content reactions.
 */
export function testAdapters(): Pick<
  SiteAdapters,
  'blobs' | 'http' | 'mailer' | 'accounts' | 'contentReactions' | 'webhookHttp'
> {
  return {
    blobs: createMemoryBlobStore(),
    http: offline,
    mailer: { send: async () => undefined },
    accounts: userAccounts,
    contentReactions,
    webhookHttp: offline,
  };
}

export async function startTestSite(options: TestSiteOptions = {}): Promise<TestSite> {
  const clock = manualClock(options.now ?? Date.parse('2024-05-01T12:00:00Z'));
  const server = http.createServer();
  // As the real server (src/main.ts): idle connections are kept long past the client's own keep-alive, so a loaded
  // machine whose timers fire late never has the server close a socket the client is just reusing.
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const siteUrl = options.siteUrl ?? `http://127.0.0.1:${port}`;
  const site = createSite(
    {
      siteUrl,
      name: 'Test site',
      description: 'Just another test site',
      timezone: options.timezone ?? 'UTC',
      authSecret: 'test-secret',
      idBlockSize: 5,
      readYourWritesTimeoutMs: options.readYourWritesTimeoutMs ?? 5000,
      instance: options.instance && instanceNamed(options.instance),
      caches:
        options.caches ??
        (options.responseCache
          ? new CacheBudget({
              engine: options.coordination ? 'redis' : 'memory',
              bounds: { responses: options.responseCache },
            })
          : undefined),
      apiDialect: options.apiDialect,
      corsAllowedOrigins: options.corsAllowedOrigins,
      trustedProxies: options.trustedProxies,
      bodyLimits: options.bodyLimits,
      imageMaxPixels: options.imageMaxPixels,
      commentFloodSeconds: options.commentFloodSeconds,
      readinessCheckMs: options.readinessCheckMs,
      blockPatterns: options.blockPatterns,
      auditStreamHeartbeatMs: options.auditStreams?.heartbeatMs,
      auditStreamsPerUser: options.auditStreams?.perUser,
      auditStreamsTotal: options.auditStreams?.total,
      webhooks: options.webhooks,
    },
    {
      store: options.store ?? createMemoryEventStore(),
      readModel: options.readModel ?? createMemoryReadModel(),
      clock,
      projections: options.projections,
      ...testAdapters(),
      // Deliveries reach the tests' receivers on loopback through the real client, as the server's do.
      ...(options.webhooks
        ? { webhookHttp: createWebhookHttp({ ...DEFAULT_WEBHOOK_SETTINGS, ...options.webhooks }) }
        : {}),
      ...(options.http ? { http: options.http } : {}),
      ...(options.mailer ? { mailer: options.mailer } : {}),
      ...(options.blobs ? { blobs: options.blobs } : {}),
      ...(options.coordination ? { coordination: options.coordination } : {}),
    },
  );
  // With webhooks configured, as the server starts it: the deliverer runs beside the projector.
  const projectorStarted = options.apiOnly
    ? Promise.resolve()
    : options.coordination || options.webhooks
      ? site.startProjector({ deliverWebhooks: options.webhooks !== undefined })
      : site.projector.start();
  if (!options.serveWhileStarting) await projectorStarted;
  const app = createApp(site);
  server.on('request', app.callback());
  const base = `http://127.0.0.1:${port}`;

  const request = requestsTo(base);

  const createUser = async (login: string, role: Role): Promise<TestUser> => {
    const { id } = await registerUser(site, { login, role, email: `${login}@example.test` }, null, 'test');
    const { password, position } = await createApplicationPassword(site, id, { name: 'tests' }, null, 'test');
    await site.settle(position);
    return { id, login, password, auth: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` };
  };

  return {
    site,
    url: base,
    clock,
    projectorStarted,
    request,
    createUser,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await site.close();
    },
  };
}

/**
 * A response's body as text. A followed Server-Sent Events feed never ends, so of an event stream only its first
 * chunk is read (what a sweep of every route checks: the status, the headers and the opening), and then it is closed.
 */
export async function responseText(response: Response): Promise<string> {
  if (!/^text\/event-stream/i.test(response.headers.get('content-type') ?? '') || response.body === null)
    return response.text();
  const reader = response.body.getReader();
  const first = await reader.read();
  await reader.cancel();
  return first.done ? '' : new TextDecoder().decode(first.value);
}

/** The `request` of a test site, for any server at `base` (a test site's, or a real process's). */
export function requestsTo(base: string): TestSite['request'] {
  return async (method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    let body: string | Buffer | undefined;
    if (opts.raw) {
      body = opts.raw.data;
      headers['content-type'] = opts.raw.type;
    } else if (opts.form) {
      body = new URLSearchParams(opts.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    if (opts.as) headers.authorization = opts.as.auth;
    const response = await fetch(`${base}${path}`, { method, headers, body });
    const text = await responseText(response);
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
}
