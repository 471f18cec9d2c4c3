/**
 * `palimpsest <command>`: serve, projector, user create, projections rebuild, projections sweep, media sweep, option get|set, replay, import wxr, import wordpress, export wxr. Each command
 * opens the site from the same configuration as the server (environment variables), so it can run beside a live
 * server on the same DATA_DIR: its events reach the server through the shared event store. Every command first says
 * on stderr which site it acts on (SITE_URL, DATA_DIR resolved, the event store and the read model), since a
 * relative DATA_DIR depends on the directory it is run from.
 *
 * Arguments are parsed with node's `util.parseArgs`, strictly: an unknown option, a missing value or a name that does
 * not exist (a command, a projection, a role) is refused with the valid ones, and exit status 2, as is a setting that
 * does not parse. A command that fails exits with 1.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../config';
import type { Config } from '../config';
import { openBlobStore, openEventStore, openSite, redisTimeouts, siteProjections } from '../bootstrap';
import { progressPrinter, rebuildProjections } from './rebuild';
import { COMMANDS, COMMAND_NAMES, isParseArgsError, parse, USAGE, UsageError } from './usage';
import type { CommandName } from './usage';
import { replayLog } from '../projection/replay';
import { createMemoryReadModel } from '../readModel/memory/readModel';
import type { ReplayPoint } from '../projection/replay';
import { redact } from '../resources/audit/log';
import { localToInstant, parseRestDate } from '../text/dates';
import { isRole, ROLES } from '../access/capabilities';
import { createApplicationPassword, registerUser } from '../resources/users/operations';
import { answerableError } from '../rest/domainErrors';
import { isDependencyUnavailable } from '../ports/unavailable';
import { DEFAULT_SWEEP_GRACE_MS, sweepOrphanedFiles } from '../resources/media/sweep';

const HELP = new Set(['help', '--help', '-h']);
const VERSION = new Set(['--version', '-v']);

export async function main(argv: string[]): Promise<number> {
  let command: CommandName | undefined;
  try {
    // Asked for, the usage is the answer (stdout); without a command it is a usage error (stderr, status 2).
    if (argv.length === 0) {
      console.error(USAGE);
      return 2;
    }
    if (HELP.has(argv[0]!)) {
      console.log(USAGE);
      return 0;
    }
    if (VERSION.has(argv[0]!)) {
      console.log(`palimpsest ${ownVersion()}`);
      return 0;
    }
    const found = commandOf(argv);
    command = found.command;
    const args = found.args;
    // Only the options ask for help after a command: a bare `help` there is a value (`user create --login help`).
    if (args.some((arg) => arg === '--help' || arg === '-h')) {
      console.log(`usage: ${COMMANDS[command].usage}\n  ${COMMANDS[command].about}`);
      return 0;
    }
    switch (command) {
      case 'serve':
      case 'projector':
        return await run(command, args);
      case 'user create':
        return await userCreate(args);
      case 'projections rebuild':
        return await rebuild(args);
      case 'projections sweep':
        return await sweep(args);
      case 'media sweep':
        return await mediaSweep(args);
      case 'replay':
        return await replay(args);
      case 'import wxr': {
        const { values, positionals } = parse(
          command,
          args,
          { 'dry-run': { type: 'boolean', default: false }, uploads: { type: 'string' } },
          true,
        );
        return await (await import('./importWxr')).importWxrCommand(positionals, values, siteConfig);
      }
      case 'import wordpress': {
        const options = {
          'dry-run': { type: 'boolean', default: false },
          user: { type: 'string' },
          'app-password': { type: 'string' },
        } as const;
        const { values, positionals } = parse(command, args, options, true);
        return await (await import('./importWordpress')).importWordpressCommand(positionals, values, siteConfig);
      }
      case 'export wxr': {
        const { values, positionals } = parse(command, args, { out: { type: 'string' } }, true);
        return await (await import('./exportWxr')).exportWxrCommand(positionals, values, siteConfig);
      }
      case 'option get':
      case 'option set':
        return await (await import('./option')).optionCommand(command, args, siteConfig);
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      const which = error instanceof UsageError ? (error.command ?? command) : command;
      console.error(
        which
          ? `palimpsest ${which}: ${error.message}\nusage: ${COMMANDS[which].usage}`
          : `palimpsest: ${error.message}`,
      );
      return 2;
    }
    if (error instanceof ConfigError) {
      console.error(`palimpsest: ${error.message}`);
      return 2;
    }
    if (isDependencyUnavailable(error)) {
      console.error(`palimpsest ${command}: the ${error.dependency} is unavailable: ${error.message}`);
      return 1;
    }
    const refusal = answerableError(error);
    console.error(
      refusal !== null ? `${refusal.code}: ${refusal.message}` : error instanceof Error ? error.message : String(error),
    );
    return 1;
  }
}

/** The command named by the first one or two arguments, and the arguments after it. */
function commandOf(argv: string[]): { command: CommandName; args: string[] } {
  const [first, second] = argv;
  const two = `${first} ${second}`;
  if ((COMMAND_NAMES as string[]).includes(two)) return { command: two as CommandName, args: argv.slice(2) };
  if ((COMMAND_NAMES as string[]).includes(first!) && !first!.includes(' '))
    return { command: first as CommandName, args: argv.slice(1) };
  const subcommands = COMMAND_NAMES.filter((name) => name.startsWith(`${first} `));
  if (subcommands.length > 0) {
    const given = second === undefined ? `"${first}" needs a subcommand` : `unknown command "${two}"`;
    throw new UsageError(`${given}; it is one of: ${subcommands.join(', ')}`);
  }
  throw new UsageError(
    `unknown command "${first}"; the commands are: ${COMMAND_NAMES.join(', ')} (palimpsest help for more)`,
  );
}

/**
 * Says on stderr which site a command acts on: SITE_URL, DATA_DIR as resolved (a relative one depends on the
 * directory the command is run from), the event store and the read model.
 */
export function describeSite(config: Config): string {
  const log = path.join(config.dataDir, 'events.sqlite');
  const store = config.eventStoreUrl
    ? `EventStoreDB ${withoutCredentials(config.eventStoreUrl)}`
    : `SQLite ${log}${fs.existsSync(log) ? '' : ' (no log there yet: a new site)'}`;
  const readModel = config.redisUrl
    ? `Redis ${withoutCredentials(config.redisUrl)} (prefix ${config.redisPrefix})`
    : 'in process';
  return `palimpsest: site ${config.siteUrl}; DATA_DIR ${config.dataDir}; event store ${store}; read model ${readModel}`;
}

/** A connection string without its password (and user name), for what is printed. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/** The configuration, announced on stderr. */
function siteConfig(): Config {
  const config = loadConfig();
  console.error(describeSite(config));
  return config;
}

/** `serve` and `projector`: run until stopped, then end the process (a failed start may leave connections behind). */
async function run(command: 'serve' | 'projector', args: string[]): Promise<number> {
  const flags =
    command === 'serve'
      ? parse(command, args, { 'no-projector': { type: 'boolean', default: false } }).values
      : parse(command, args, {}).values;
  const projector = !(flags as { 'no-projector'?: boolean })['no-projector'];
  const config = loadConfig();
  const { serve, runProjector, runUntilStopped } = await import('../main');
  // The signal handlers are in before anything is said or opened.
  const code = await runUntilStopped(() => {
    console.error(describeSite(config));
    return command === 'serve' ? serve(config, { projector }) : runProjector(config);
  }, config.shutdownTimeoutMs);
  process.exit(code);
}

async function userCreate(args: string[]): Promise<number> {
  const { values } = parse('user create', args, {
    login: { type: 'string' },
    role: { type: 'string' },
    email: { type: 'string' },
    json: { type: 'boolean', default: false },
    'app-name': { type: 'string' },
  });
  if (!values.login) throw new UsageError('--login is required', 'user create');
  const role = values.role ?? 'subscriber';
  if (!isRole(role)) throw new UsageError(`unknown role "${role}"; the roles are: ${ROLES.join(', ')}`, 'user create');
  const config = siteConfig();
  const site = await openSite(config);
  try {
    const requestId = `cli-${randomUUID()}`;
    const { id } = await registerUser(site, { login: values.login, email: values.email, role }, null, requestId);
    const { password, position } = await createApplicationPassword(
      site,
      id,
      { name: values['app-name'] ?? 'palimpsest-cli' },
      null,
      requestId,
    );
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
  const { positionals } = parse('projections rebuild', args, {}, true);
  const config = siteConfig();
  // Names are checked against the site's projections (built-in and PROJECTIONS_DIR) before anything is opened.
  const known = (await siteProjections(config)).map((projection) => projection.name);
  const unknown = positionals.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    const names = unknown.map((name) => `"${name}"`).join(', ');
    throw new UsageError(
      `unknown projection${unknown.length > 1 ? 's' : ''} ${names}; the projections are: ${known.join(', ')}`,
      'projections rebuild',
    );
  }
  if (!config.redisUrl) {
    console.log(
      'The embedded read model lives in the server process and is rebuilt from the log at every start; nothing to do.',
    );
    return 0;
  }
  const site = await openSite(config);
  try {
    // One pass over the log for all of them (src/cli/rebuild.ts).
    await rebuildProjections(site, [...new Set(positionals)]);
    return 0;
  } finally {
    await site.close();
  }
}

async function sweep(args: string[]): Promise<number> {
  const { values } = parse('projections sweep', args, { 'dry-run': { type: 'boolean', default: false } });
  const config = siteConfig();
  if (!config.redisUrl) {
    console.log('The embedded read model keeps no generations; nothing to sweep.');
    return 0;
  }
  const [{ Redis }, { sweepGenerations }, { redisOptions }] = await Promise.all([
    import('ioredis'),
    import('../readModel/redis/sweep'),
    import('../adapters/redis/connections'),
  ]);
  const redis = new Redis(config.redisUrl, redisOptions('command', redisTimeouts(config)));
  // Connection errors come back as the failed command's; the event itself is not left unhandled.
  redis.on('error', () => undefined);
  try {
    const dryRun = values['dry-run'] === true;
    const report = await sweepGenerations({ redis, prefix: config.redisPrefix, dryRun });
    for (const { projection, generation } of report.unstaged) {
      console.log(
        `${projection}: staged generation ${generation} has no builder${dryRun ? ' (would be un-staged)' : ', un-staged'}`,
      );
    }
    const which =
      report.generations.length > 0
        ? ` of generation${report.generations.length > 1 ? 's' : ''} ${report.generations.join(', ')}`
        : '';
    console.log(`${report.keys} key${report.keys === 1 ? '' : 's'}${which} ${dryRun ? 'would be deleted' : 'deleted'}`);
    return 0;
  } finally {
    await redis.quit().catch(() => undefined);
    redis.disconnect();
  }
}

async function mediaSweep(args: string[]): Promise<number> {
  const { values } = parse('media sweep', args, {
    'dry-run': { type: 'boolean', default: false },
    'older-than': { type: 'string' },
  });
  const olderThan = values['older-than'] ?? String(DEFAULT_SWEEP_GRACE_MS / 1000);
  if (!/^\d+$/.test(olderThan))
    throw new UsageError(`--older-than must be a whole number of seconds, got "${olderThan}"`, 'media sweep');
  const config = siteConfig();
  const dryRun = values['dry-run'] === true;
  const [store, blobs] = await Promise.all([openEventStore(config), openBlobStore(config)]);
  try {
    const outcome = await sweepOrphanedFiles(
      { store, blobs },
      { olderThanMs: Number(olderThan) * 1000, now: Date.now(), dryRun },
    );
    for (const key of outcome.orphans) console.log(`${dryRun ? 'would remove' : 'removed'} ${key}`);
    const files = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    console.log(
      `${files(outcome.listed, 'stored file')}: ${outcome.named} named by attachments, ${outcome.young} unnamed but younger than ${olderThan} s (kept), ${files(outcome.orphans.length, 'orphan')} ${dryRun ? 'to remove' : 'removed'}`,
    );
    return 0;
  } finally {
    await Promise.all([store.close(), blobs.close?.()]);
  }
}

export { progressLine } from './rebuild';

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * `--until`: a global log position (digits), a date-time (site time zone unless it carries an offset), or a date
 * alone (midnight at its start, in the site time zone).
 */
export function replayPoint(until: string, timezone: string): ReplayPoint {
  if (/^\d+$/.test(until)) return { position: Number(until) };
  const date = DATE_ONLY.exec(until);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const wall = Date.UTC(year, month - 1, day);
    const check = new Date(wall);
    if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
      throw new UsageError(`--until: ${until} is not a date of the calendar`, 'replay');
    }
    return { time: localToInstant(wall, timezone) };
  }
  const time = parseRestDate(until, timezone);
  if (time === null)
    throw new UsageError(
      `--until must be a log position, a date (2024-05-01) or a date-time (2024-05-01T12:00:00Z), got "${until}"`,
      'replay',
    );
  return { time };
}

async function replay(args: string[]): Promise<number> {
  const { values } = parse('replay', args, { until: { type: 'string' }, out: { type: 'string' } });
  if (!values.until) throw new UsageError('--until is required', 'replay');
  const config = siteConfig();
  const point = replayPoint(values.until, config.timezone);
  const [projections, store] = await Promise.all([siteProjections(config), openEventStore(config)]);
  try {
    const printer = progressPrinter();
    const result = await replayLog({
      store,
      projections,
      point,
      readModel: createMemoryReadModel(),
      onProgress: printer.onProgress,
    }).finally(() => printer.end());
    // Secrets (password hashes) stay out of exports, as they stay out of the audit log.
    const state = {
      until: { position: result.cutoff.position, time: result.cutoff.time },
      collections: redact(result.collections),
    };
    const json = JSON.stringify(state, null, 2);
    if (values.out) {
      fs.writeFileSync(values.out, `${json}\n`);
      const counts = Object.entries(result.collections)
        .map(([name, docs]) => `${name}: ${docs.length}`)
        .join(', ');
      console.log(
        `state at position ${result.cutoff.position} (${result.cutoff.time ?? 'empty log'}) written to ${values.out} (${counts})`,
      );
    } else {
      console.log(json);
    }
    return 0;
  } finally {
    await store.close();
  }
}

/** The version in the project's package.json, found above this module (run from src/, or from its build in dist/). */
function ownVersion(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const found = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (found.name === 'palimpsest' && found.version) return found.version;
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
