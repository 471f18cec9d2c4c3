/**
 * The block editor's data layer, @wordpress/core-data, unchanged, in node: one registry per signed-in person, each
 * speaking to its site through the one @wordpress/api-fetch the package uses, configured as a WordPress page
 * configures it (`createRootURLMiddleware('SITE/wp-json/')`) with an application password over Basic auth.
 *
 * api-fetch's middlewares are process-wide, so the site and the credentials of a call are carried in an
 * AsyncLocalStorage context: every call of a session's `select`, `resolveSelect` and `dispatch` runs in its own
 * context, and so do the resolvers it starts (they run in timers and promises begun there).
 *
 * Browser globals: core-data reads `window.__experimentalEnableRealTimeCollaboration` (and related flags) from
 * `window` at call time, and @wordpress/sync, which it imports, reads `document.visibilityState` while loading.
 * Nothing else of a browser is used on the paths the client tests take. `loadCoreData` provides exactly those
 * two: a `document` with only `visibilityState` (no `addEventListener`, so libraries loaded with it install no
 * listeners), and, once the modules are loaded, an empty `window` (defined only after loading, because some
 * libraries take a defined `window` for a full browser while loading). `unloadCoreData` removes both.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CoreDataTarget {
  /** The site's address, without a trailing slash (`http://127.0.0.1:1234`). */
  site: string;
  /** The `Authorization` header of the person signed in, or null for an anonymous visitor. */
  auth: string | null;
}

/** One person's core-data store. Every method runs in the session's context (its site and credentials). */
export interface CoreDataSession {
  select: any;
  resolveSelect: any;
  dispatch: any;
  /** Runs `fn` in this session's context (for direct api-fetch calls). */
  run<T>(fn: () => T): T;
  /** api-fetch, as core-data calls it, in this session's context. */
  apiFetch(options: Record<string, unknown>): Promise<any>;
}

export interface CoreDataClient {
  session(target: CoreDataTarget): CoreDataSession;
  /** Every request sent: its method (the one asked for, which api-fetch sends as POST with an override) and URL. */
  sent: { method: string; url: string }[];
}

const context = new AsyncLocalStorage<CoreDataTarget>();
let loaded: Promise<CoreDataClient> | null = null;
let middlewares: ((options: any, next: any) => any)[] = [];
const g = globalThis as Record<string, unknown>;
let definedGlobals: string[] = [];

export function loadCoreData(): Promise<CoreDataClient> {
  loaded ??= load();
  return loaded;
}

async function load(): Promise<CoreDataClient> {
  definedGlobals = [];
  // @wordpress/sync reads `document.visibilityState` while it loads; it is loaded first, alone, with a `document`
  // that has nothing else, which is then removed so that no other library takes the process for a browser.
  if (g.document === undefined) {
    g.document = { visibilityState: 'visible' };
    try {
      await import('@wordpress/sync');
    } finally {
      delete g.document;
    }
  }
  await import('mousetrap');
  if (g.window === undefined) {
    g.window = {
      setTimeout,
      clearTimeout,
      setInterval,
      clearInterval,
      navigator: { userAgent: `Node.js/${process.version}`, onLine: true },
    };
    definedGlobals.push('window');
  }
  const [{ default: apiFetch }, data, coreData] = await Promise.all([
    import('@wordpress/api-fetch'),
    import('@wordpress/data'),
    import('@wordpress/core-data'),
  ]);
  const sent: CoreDataClient['sent'] = [];
  // Registered last, so they run first: the site's root as a WordPress page sets it, then the credentials.
  const credentials = (options: any, next: any) => {
    const target = context.getStore();
    if (!target) throw new Error('api-fetch called outside a core-data session');
    const headers = { ...(options.headers ?? {}) };
    if (target.auth) headers.Authorization = target.auth;
    return next({ ...options, headers });
  };
  const root = (options: any, next: any) => {
    const target = context.getStore();
    if (!target) throw new Error('api-fetch called outside a core-data session');
    return apiFetch.createRootURLMiddleware(`${target.site}/wp-json/`)(options, next);
  };
  // What goes on the wire, after every middleware (api-fetch's own fetch handler, recording).
  apiFetch.setFetchHandler((options: any) => {
    sent.push({ method: options.headers?.['X-HTTP-Method-Override'] ?? options.method ?? 'GET', url: options.url });
    return apiFetch.defaultFetchHandler(options);
  });
  middlewares = [credentials, root];
  apiFetch.use(credentials);
  apiFetch.use(root);

  const session = (target: CoreDataTarget): CoreDataSession => {
    const registry = data.createRegistry();
    registry.register(coreData.store);
    const inContext = <T extends object>(object: T): T =>
      new Proxy(object, {
        get(subject, key) {
          const value = Reflect.get(subject, key);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => context.run(target, () => value.apply(subject, args));
        },
      });
    return {
      select: inContext(registry.select(coreData.store)),
      resolveSelect: inContext(registry.resolveSelect(coreData.store)),
      dispatch: inContext(registry.dispatch(coreData.store)),
      run: (fn) => context.run(target, fn),
      apiFetch: (options) => context.run(target, () => apiFetch(options as any)),
    };
  };
  return { session, sent };
}

/** Takes core-data's middlewares out of api-fetch and removes the globals `loadCoreData` defined. */
export async function unloadCoreData(): Promise<void> {
  if (!loaded) return;
  const { default: apiFetch } = await import('@wordpress/api-fetch');
  for (const middleware of middlewares) apiFetch.unregister(middleware as any);
  apiFetch.setFetchHandler(apiFetch.defaultFetchHandler);
  middlewares = [];
  for (const name of definedGlobals) delete g[name];
  definedGlobals = [];
  loaded = null;
}
