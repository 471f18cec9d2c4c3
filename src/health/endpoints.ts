/**
 * Operational endpoints, outside the REST API: `/healthz` (the process is alive), `/readyz` (it can serve: the
 * event store answers, the read model answers and was built from this log up to a position the log holds (its epoch,
 * src/projection/epoch.ts), and it trails the log by less than the bound) and `/metrics` (Prometheus). Framework-free, so the API (app.ts) and the projector's own listener serve the same answers.
 */
import type { Site } from '../site';
import { LAG_COUNT_LIMIT, projectorLag } from '../metrics/siteMetrics';

export interface OperationalResponse {
  status: number;
  type: string;
  body: string;
}

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const json = (status: number, body: unknown): OperationalResponse => ({
  status,
  type: 'application/json; charset=UTF-8',
  body: JSON.stringify(body),
});
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export interface Readiness {
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string; [detail: string]: unknown }>;
}

export async function readiness(site: Site): Promise<Readiness> {
  const checks: Readiness['checks'] = {};
  const [store, judged, lag] = await Promise.allSettled([
    withTimeout(site.store.headPosition(), 'the event store'),
    // Judged afresh (and the judgement requests are gated on with it).
    withTimeout(site.readModelWatch.refresh(), 'the read model'),
    withTimeout(
      projectorLag({ store: site.store, clock: site.clock, applied: () => site.appliedNow() }),
      'the projector lag',
    ),
  ]);
  checks.eventStore =
    store.status === 'fulfilled' ? { ok: true, head: store.value } : { ok: false, error: message(store.reason) };
  if (judged.status === 'rejected') checks.readModel = { ok: false, error: message(judged.reason) };
  else if (judged.value.error !== undefined) checks.readModel = { ok: false, error: judged.value.error };
  else {
    const { verdict } = judged.value;
    const epoch = verdict.epoch
      ? { log: verdict.epoch.log, position: verdict.epoch.position, at: verdict.epoch.at }
      : null;
    checks.readModel =
      verdict.state === 'trusted'
        ? { ok: true, state: verdict.state, epoch }
        : { ok: false, state: verdict.state, epoch, error: verdict.reason };
  }
  const bound = site.settings.readyMaxLagSeconds ?? 30;
  const problems = site.projector.failures.map((f) => `stopped projection ${f.projection}: ${message(f.error)}`);
  if (site.projector.refusal !== null) problems.push(`the projector applies nothing: ${site.projector.refusal}`);
  if (lag.status === 'rejected') checks.projector = { ok: false, error: message(lag.reason) };
  else {
    const { events, seconds, applied, head, ahead } = lag.value;
    if (ahead)
      problems.unshift(
        `the read model's applied position ${applied} is not a position of the event store's log (head ${head}): the store is behind the read model, or holds another log`,
      );
    else if (seconds > bound)
      problems.unshift(`the read model is ${seconds.toFixed(1)} s behind the log (bound ${bound} s)`);
    checks.projector = {
      ok: problems.length === 0,
      applied,
      head,
      lagEvents: events,
      ...(events >= LAG_COUNT_LIMIT ? { lagEventsAtLeast: true } : {}),
      lagSeconds: seconds,
      ...(problems.length ? { error: problems.join('; ') } : {}),
    };
  }
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

/** The answer for an operational path, or null when the path is not one (the REST API serves it). */
export async function operationalResponse(
  site: Site,
  method: string,
  path: string,
): Promise<OperationalResponse | null> {
  if (method !== 'GET' && method !== 'HEAD') return null;
  switch (path) {
    case '/healthz':
      return json(200, { status: 'ok' });
    case '/readyz': {
      const result = await readiness(site);
      return json(result.ready ? 200 : 503, { status: result.ready ? 'ready' : 'not ready', checks: result.checks });
    }
    case '/metrics':
      return { status: 200, type: site.metrics.registry.contentType, body: await site.metrics.registry.render() };
    default:
      return null;
  }
}
