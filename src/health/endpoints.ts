/**
 * Operational endpoints, outside the REST API: `/healthz` (the process is alive), `/readyz` (it can serve: the
 * event store and the read model answer, and the read model trails the log by less than the bound) and `/metrics`
 * (Prometheus). Framework-free, so the API (app.ts) and the projector's own listener serve the same answers.
 */
import type { Site } from '../site';
import { projectorLag } from '../metrics/siteMetrics';

export interface OperationalResponse {
  status: number;
  type: string;
  body: string;
}

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const json = (status: number, body: unknown): OperationalResponse => ({ status, type: 'application/json; charset=UTF-8', body: JSON.stringify(body) });
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface Readiness {
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string; [detail: string]: unknown }>;
}

export async function readiness(site: Site): Promise<Readiness> {
  const checks: Readiness['checks'] = {};
  const [store, readModel, lag] = await Promise.allSettled([
    withTimeout(site.store.headPosition(), 'the event store'),
    withTimeout(site.readModel.checkpoint(site.projector.names[0] ?? 'posts'), 'the read model'),
    withTimeout(projectorLag({ store: site.store, clock: site.clock, applied: () => site.appliedPosition() }), 'the projector lag'),
  ]);
  checks.eventStore = store.status === 'fulfilled' ? { ok: true, head: store.value } : { ok: false, error: message(store.reason) };
  checks.readModel = readModel.status === 'fulfilled' ? { ok: true } : { ok: false, error: message(readModel.reason) };
  const bound = site.settings.readyMaxLagSeconds ?? 30;
  const failures = site.projector.failures.map((f) => `${f.projection}: ${message(f.error)}`);
  if (lag.status === 'rejected') checks.projector = { ok: false, error: message(lag.reason) };
  else {
    const { events, seconds, applied } = lag.value;
    const ok = seconds <= bound && failures.length === 0;
    checks.projector = {
      ok,
      applied,
      lagEvents: events,
      lagSeconds: seconds,
      ...(seconds > bound ? { error: `the read model is ${seconds.toFixed(1)} s behind the log (bound ${bound} s)` } : {}),
      ...(failures.length ? { error: `stopped projections: ${failures.join('; ')}` } : {}),
    };
  }
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

/** The answer for an operational path, or null when the path is not one (the REST API serves it). */
export async function operationalResponse(site: Site, method: string, path: string): Promise<OperationalResponse | null> {
  if (method !== 'GET' && method !== 'HEAD') return null;
  switch (path) {
    case '/healthz':
      return json(200, { status: 'ok' });
    case '/readyz': {
      const result = await readiness(site);
      return json(result.ready ? 200 : 503, { status: result.ready ? 'ready' : 'not ready', checks: result.checks });
    }
    case '/metrics':
      return { status: 200, type: 'text/plain; version=0.0.4; charset=utf-8', body: await site.metrics.registry.render() };
    default:
      return null;
  }
}
