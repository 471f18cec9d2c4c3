/**
 * `palimpsest projections rebuild`, exactly as the CLI runs it, then an explicit exit: with REDIS_URL the
 * CLI leaves its Redis connection open (the site's close does not quit the client bootstrap made), so
 * bin/palimpsest.js would not exit on its own.
 *
 * Beside each of the CLI's "NAME: N events replayed at R events/s" lines it prints "redis-cpu NAME S": the seconds of
 * CPU Redis's main thread had used since the rebuild began (INFO cpu, read on a connection of its own when the line
 * is printed). Every projection is rebuilt in one pass over the log, so the first projection's figure is Redis's own
 * work for the pass until that projection's switch (every projection's writes): with Redis doing nothing else, no
 * client can rebuild faster than the log's events over those seconds.
 */
import Redis from 'ioredis';
import { main } from '../src/cli/index';

const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });

/** Seconds of CPU Redis's main thread has used (the whole process's on a Redis without the per-thread fields). */
async function redisCpuSeconds(): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  const main = field('used_cpu_sys_main_thread') + field('used_cpu_user_main_thread');
  return Number.isFinite(main) ? main : field('used_cpu_sys') + field('used_cpu_user');
}

const start = await redisCpuSeconds();
const samples: Promise<void>[] = [];
const print = console.log.bind(console);
console.log = (...args: unknown[]) => {
  print(...args);
  const rebuilt = /^(\S+): \d+ events replayed at \d+ events\/s$/.exec(String(args[0]));
  if (rebuilt)
    samples.push(redisCpuSeconds().then((now) => print(`redis-cpu ${rebuilt[1]} ${(now - start).toFixed(3)}`)));
};

const code = await main(['projections', 'rebuild']);
await Promise.all(samples);
redis.disconnect();
process.exit(code);
