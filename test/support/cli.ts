/**
 * Runs `palimpsest` in the test's own process, on a DATA_DIR of its own and without Redis or EventStoreDB, with
 * what it prints kept instead of written: standard output as one text (console.log lines and direct writes, in
 * order), standard error as its lines joined. The environment and the console are put back afterwards.
 */
import { main } from '../../src/cli/index';

const KEPT_ENV = ['DATA_DIR', 'REDIS_URL', 'EVENTSTORE_URL', 'TIMEZONE'] as const;

export async function runCli(dataDir: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const env = Object.fromEntries(KEPT_ENV.map((key) => [key, process.env[key]]));
  const [log, error, write] = [console.log, console.error, process.stdout.write];
  const out: string[] = [];
  const err: string[] = [];
  console.log = (...parts: unknown[]) => void out.push(`${parts.join(' ')}\n`);
  console.error = (...parts: unknown[]) => void err.push(parts.join(' '));
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    out.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    const done = rest.find((part) => typeof part === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof process.stdout.write;
  process.env.DATA_DIR = dataDir;
  delete process.env.REDIS_URL;
  delete process.env.EVENTSTORE_URL;
  try {
    return { code: await main(args), out: out.join(''), err: err.join('\n') };
  } finally {
    [console.log, console.error, process.stdout.write] = [log, error, write];
    for (const [key, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
