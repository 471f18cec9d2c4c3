/**
 * What the CLI commands share: the table of commands with their usage lines, the error that refuses a command line
 * (exit status 2, with the command's usage), and strict argument parsing that turns node's parse errors into it.
 * The command modules import this; src/cli/index.ts dispatches to them.
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { ROLES } from '../access/capabilities';
import { DEFAULT_SWEEP_GRACE_MS } from '../resources/media/sweep';

/** Each command: its usage line(s), and what it does. */
export const COMMANDS = {
  serve: {
    usage: 'palimpsest serve [--no-projector]',
    about:
      'start the API server (same as npm start); --no-projector: an API node only, for several nodes sharing EventStoreDB and Redis',
  },
  projector: {
    usage: 'palimpsest projector',
    about:
      'run the projector alone, on the Redis read model (REDIS_URL); one at a time applies events, others stand by; serves /healthz, /readyz and /metrics on PORT',
  },
  'user create': {
    usage: 'palimpsest user create --login NAME [--role ROLE] [--email EMAIL] [--app-name NAME] [--json]',
    about: `create a user with an application password; ROLE is one of ${ROLES.join(', ')} (default subscriber)`,
  },
  'projections rebuild': {
    usage: 'palimpsest projections rebuild [NAME...]',
    about: 'rebuild read models from the event log (every projection, or those named)',
  },
  'projections sweep': {
    usage: 'palimpsest projections sweep [--dry-run]',
    about:
      'delete the Redis keys of generations nobody uses (a rebuild that died part-way, a retired generation not deleted); --dry-run: only report',
  },
  'media sweep': {
    usage: 'palimpsest media sweep [--dry-run] [--older-than SECONDS]',
    about: `remove stored files no attachment names (left by a process that died mid-upload, or a removal that failed) once older than SECONDS (default ${DEFAULT_SWEEP_GRACE_MS / 1000}); --dry-run: only report`,
  },
  'option get': {
    usage: 'palimpsest option get NAME',
    about: 'a site option WordPress keeps outside /settings (require_name_email)',
  },
  'option set': {
    usage: 'palimpsest option set NAME VALUE',
    about: 'change such an option: VALUE is 1 or 0 (true/false, on/off, yes/no), or "default"',
  },
  replay: {
    usage: 'palimpsest replay --until DATE|DATE-TIME|POSITION [--out FILE]',
    about:
      "the site's read models as they were at that point, as JSON: a log position, a date-time (2024-05-01T12:00:00, site time zone unless it carries an offset) or a date (2024-05-01: midnight at its start, site time zone)",
  },
  'import wxr': {
    usage: 'palimpsest import wxr FILE [--uploads DIR] [--dry-run]',
    about:
      'bring a WordPress export (Tools > Export, WXR) into the site: authors, categories, tags, menus, posts, pages, comments and attachments (their files from DIR, the old wp-content/uploads), ids kept where free; a rerun changes nothing; --dry-run: only report (docs/migration.md)',
  },
  'export wxr': {
    usage: 'palimpsest export wxr [--out FILE]',
    about:
      "the site as a WordPress export (WXR 1.2) that WordPress's importer reads, on stdout or into FILE (docs/migration.md)",
  },
  'import wordpress': {
    usage: 'palimpsest import wordpress URL --user LOGIN --app-password PASSWORD [--dry-run]',
    about:
      "bring a live WordPress site in over its REST API, with each post's and page's revisions as its past: users, categories, tags, media (files fetched), posts and pages; ids kept where free; a rerun changes nothing; --dry-run: only report (docs/migration.md)",
  },
} as const;

export type CommandName = keyof typeof COMMANDS;
export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

export const USAGE = `usage:
${COMMAND_NAMES.map((name) => `  ${COMMANDS[name].usage}\n      ${COMMANDS[name].about}`).join('\n')}

configuration comes from the environment: DATA_DIR, SITE_URL, REDIS_URL, EVENTSTORE_URL, ... (see README)`;

/** A command line that cannot be run as given: exit status 2, with the command's usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: CommandName,
  ) {
    super(message);
  }
}

export const isParseArgsError = (error: unknown): error is Error => {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
};

/** parseArgs, strict, for `command`: its errors are usage errors of that command. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(
  command: CommandName,
  args: string[],
  options: T,
  positionals = false,
) {
  try {
    return parseArgs({ args, options, allowPositionals: positionals, strict: true });
  } catch (error) {
    if (isParseArgsError(error)) throw new UsageError(error.message, command);
    throw error;
  }
}
