/**
 * The load generator, run as its own process so that it does not share an event loop with the bench or the
 * server: `node --import tsx bench/load.ts SPEC.json` (a LoadSpec). It runs autocannon once for the warm-up
 * (discarded), once for the measurement, and prints one LoadResult as JSON.
 *
 * Latency percentiles are computed here from every 2xx response time (autocannon's own histogram rounds to
 * whole milliseconds, too coarse for sub-millisecond answers).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

export interface LoadSpec {
  port: number;
  method: 'GET' | 'POST' | 'PATCH';
  /** Each request takes one at random (a single path: always that one). */
  paths: string[];
  /** JSON body; every `{n}` becomes a value unique to the request. */
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
}

interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}

interface AutocannonResult {
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
}

interface AutocannonInstance {
  on(
    event: 'response',
    listener: (client: unknown, statusCode: number, bytes: number, responseTime: number) => void,
  ): void;
}

type Autocannon = (
  options: Record<string, unknown>,
  done: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

// autocannon is CommonJS without type declarations: required, and typed by the interfaces above.
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

let counter = 0;
const unique = `${process.pid.toString(36)}${Date.now().toString(36)}`;

function once(spec: LoadSpec, seconds: number, times: number[] | null): Promise<AutocannonResult> {
  const request: AutocannonRequest = {
    method: spec.method,
    path: spec.paths[0],
    headers: { ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}), ...spec.headers },
    setupRequest: (req) => {
      const path = spec.paths.length === 1 ? spec.paths[0] : spec.paths[Math.floor(Math.random() * spec.paths.length)];
      const body = spec.body?.replaceAll('{n}', `${unique}-${++counter}`);
      return { ...req, path, body };
    },
  };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${spec.port}`,
        connections: spec.connections,
        duration: seconds,
        requests: [request],
        timeout: 30,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (times) {
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
      });
    }
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const spec = JSON.parse(fs.readFileSync(process.argv[2] ?? '', 'utf8')) as LoadSpec;
  if (spec.warmupSeconds > 0) await once(spec, spec.warmupSeconds, null);
  const times: number[] = [];
  const result = await once(spec, spec.durationSeconds, times);
  const sorted = Float64Array.from(times).sort();
  const out: LoadResult = {
    requestsPerSecond: result['2xx'] / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
