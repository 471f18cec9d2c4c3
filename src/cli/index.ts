/**
 * `palimpsest <command>`: serve, user create, projections rebuild, replay. Each command opens the site from the same
 * configuration as the server (environment variables), so it can run beside a live server on the same
 * DATA_DIR: its events reach the server through the shared event store.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { openEventStore, openSite, siteProjections } from '../bootstrap';
import { progressPrinter, rebuildProjections } from './rebuild';
import { replayLog } from '../projection/replay';
import type { ReplayPoint } from '../projection/replay';
import { redact } from '../resources/audit/log';
import { parseRestDate } from '../text/dates';
import { isRole, ROLES } from '../access/capabilities';
import { createApplicationPassword, registerUser } from '../resources/users/operations';
import { RestError } from '../rest/errors';

const USAGE = `usage:
  palimpsest serve [--no-projector]         start the API server (same as npm start); --no-projector: an API
                                            node only, for several nodes sharing EventStoreDB and Redis
  palimpsest projector                      run the projector alone (one at a time applies events; others stand
                                            by); serves /healthz, /readyz and /metrics on PORT
  palimpsest user create --login NAME --role ROLE [--email EMAIL] [--json]
                                            create a user with an application password
  palimpsest projections rebuild [NAME]     rebuild read models from the event log
  palimpsest projections sweep [--dry-run]  delete the Redis keys of generations nobody uses (a rebuild that died
                                            part-way, a retired generation not deleted); --dry-run: only report
  palimpsest replay --until DATE|POSITION [--out FILE]
                                            the site's read models as they were at that point, as JSON

configuration comes from the environment: DATA_DIR, SITE_URL, REDIS_URL, EVENTSTORE_URL, ... (see README)`;

export async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  try {
    if (command === 'serve' || command === 'projector') {
      const { serve, runProjector } = await import('../main');
      const flags = parseArgs({ args: argv.slice(1), options: { 'no-projector': { type: 'boolean', default: false } } }).values;
      if (command === 'projector' && flags['no-projector']) throw new Error('--no-projector is an option of serve');
      const config = loadConfig();
      const started = command === 'serve' ? serve(config, { projector: !flags['no-projector'] }) : runProjector(config);
      // Handlers go in before start-up ends (as in main.ts): a stop sent the moment the "serving" line is printed
      // must close cleanly, not kill the process. A stop during start-up closes once started.
      const stopped = new Promise<void>((resolve, reject) => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const) {
          process.once(signal, () => void started.then(({ close }) => close()).then(resolve, reject));
        }
      });
      await started;
      await stopped;
      return 0;
    }
    if (command === 'user' && sub === 'create') return await userCreate(rest);
    if (command === 'projections' && sub === 'rebuild') return await rebuild(rest);
    if (command === 'projections' && sub === 'sweep') return await sweep(rest);
    if (command === 'replay') return await replay(argv.slice(1));
    console.error(USAGE);
    return command === undefined || command === '--help' || command === 'help' ? 0 : 2;
  } catch (error) {
    console.error(error instanceof RestError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error));
    return 1;
  }
}

async function userCreate(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { login: { type: 'string' }, role: { type: 'string' }, email: { type: 'string' }, json: { type: 'boolean', default: false }, 'app-name': { type: 'string' } },
  });
  if (!values.login) throw new Error('--login is required');
  const role = values.role ?? 'subscriber';
  if (!isRole(role)) throw new Error(`--role must be one of ${ROLES.join(', ')}`);
  const config = loadConfig();
  const site = await openSite(config);
  try {
    const requestId = `cli-${randomUUID()}`;
    const { id } = await registerUser(site, { login: values.login, email: values.email, role }, null, requestId);
    const { password, position } = await createApplicationPassword(site, id, { name: values['app-name'] ?? 'palimpsest-cli' }, null, requestId);
    // With a shared read model, answer once the projector has applied the user, so it can sign in at once. (The
    // embedded read model lives in the server, which applies the events on its own.)
    if (config.redisUrl) await site.settle(position);
    if (values.json) console.log(JSON.stringify({ id, username: values.login, app_password: password }));
    else console.log(`created user ${id} (${values.login}, ${role})\napplication password: ${password}`);
    return 0;
  } finally {
    await site.close();
  }
}

async function rebuild(args: string[]): Promise<number> {
  const config = loadConfig();
  if (!config.redisUrl) {
    console.log('The embedded read model lives in the server process and is rebuilt from the log at every start; nothing to do.');
    return 0;
  }
  const site = await openSite(config);
  try {
    // One pass over the log for all of them (src/cli/rebuild.ts).
    await rebuildProjections(site, args);
    return 0;
  } finally {
    await site.close();
  }
}

async function sweep(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { 'dry-run': { type: 'boolean', default: false } } });
  const config = loadConfig();
  if (!config.redisUrl) {
    console.log('The embedded read model keeps no generations; nothing to sweep.');
    return 0;
  }
  const [{ default: Redis }, { sweepGenerations }] = await Promise.all([import('ioredis'), import('../adapters/redis/sweep')]);
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 3 });
  try {
    const dryRun = values['dry-run'] === true;
    const report = await sweepGenerations({ redis, prefix: config.redisPrefix, dryRun });
    for (const { projection, generation } of report.unstaged) {
      console.log(`${projection}: staged generation ${generation} has no builder${dryRun ? ' (would be un-staged)' : ', un-staged'}`);
    }
    const which = report.generations.length > 0 ? ` of generation${report.generations.length > 1 ? 's' : ''} ${report.generations.join(', ')}` : '';
    console.log(`${report.keys} key${report.keys === 1 ? '' : 's'}${which} ${dryRun ? 'would be deleted' : 'deleted'}`);
    return 0;
  } finally {
    await redis.quit().catch(() => undefined);
  }
}

export { progressLine } from './rebuild';

/** `--until`: a global log position (digits) or a date-time (site time zone unless it carries an offset). */
export function replayPoint(until: string, timezone: string): ReplayPoint {
  if (/^\d+$/.test(until)) return { position: Number(until) };
  const time = parseRestDate(until, timezone);
  if (time === null) throw new Error(`--until must be a log position or a date-time such as 2024-05-01T12:00:00Z, got "${until}"`);
  return { time };
}

async function replay(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { until: { type: 'string' }, out: { type: 'string' } } });
  if (!values.until) throw new Error('--until is required');
  const config = loadConfig();
  const point = replayPoint(values.until, config.timezone);
  const [projections, store] = await Promise.all([siteProjections(config), openEventStore(config)]);
  try {
    const printer = progressPrinter();
    const result = await replayLog({ store, projections, point, onProgress: printer.onProgress }).finally(() => printer.end());
    // Secrets (password hashes) stay out of exports, as they stay out of the audit log.
    const state = { until: { position: result.cutoff.position, time: result.cutoff.time }, collections: redact(result.collections) };
    const json = JSON.stringify(state, null, 2);
    if (values.out) {
      fs.writeFileSync(values.out, `${json}\n`);
      const counts = Object.entries(result.collections).map(([name, docs]) => `${name}: ${docs.length}`).join(', ');
      console.log(`state at position ${result.cutoff.position} (${result.cutoff.time ?? 'empty log'}) written to ${values.out} (${counts})`);
    } else {
      console.log(json);
    }
    return 0;
  } finally {
    await store.close();
  }
}
