/**
 * The `palimpsest` command as users run it (`bin/palimpsest.js` in a child process): it says which site it acts on,
 * refuses what does not exist with the valid names, refuses a projector that would project for nobody, and takes a
 * date for `replay --until`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/processes';

const test = suite('the palimpsest command');

const BIN = path.join(ROOT, 'bin', 'palimpsest.js');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `palimpsest ...args` in `cwd` with the environment given (and none of the caller's site settings). */
function palimpsest(args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<Ran> {
  const clean = { ...process.env, REDIS_URL: '', EVENTSTORE_URL: '', DATA_DIR: '', PROJECTIONS_DIR: '', ...env };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: clean, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error?.killed) reject(new Error(`palimpsest ${args.join(' ')} did not end:\n${stderr}`));
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

test('a command run from another directory says which DATA_DIR it resolved, and that it holds no log yet', async () => {
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-cli-'));
  try {
    const ran = await palimpsest(
      ['replay', '--until', '1'],
      { DATA_DIR: 'site-data', SITE_URL: 'https://cms.example' },
      elsewhere,
    );
    assert.is(ran.code, 0, ran.stderr);
    const resolved = path.join(fs.realpathSync(elsewhere), 'site-data');
    const line = ran.stderr.split('\n').find((l) => l.startsWith('palimpsest: site '));
    assert.ok(line, ran.stderr);
    assert.match(line!, /^palimpsest: site https:\/\/cms\.example; /);
    assert.ok(
      line!.includes(`DATA_DIR ${resolved};`) || line!.includes(`DATA_DIR ${path.join(elsewhere, 'site-data')};`),
      line,
    );
    assert.match(line!, /event store SQLite .*events\.sqlite \(no log there yet: a new site\); read model in process$/);
  } finally {
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
});

test('credentials in the store and read model URLs are not printed', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-cli-'));
  try {
    // A sweep opens one connection; a port with nothing listening fails it quickly.
    const ran = await palimpsest(['projections', 'sweep', '--dry-run'], {
      DATA_DIR: dataDir,
      REDIS_URL: 'redis://:hunter2@127.0.0.1:1',
      REDIS_COMMAND_TIMEOUT_MS: '500',
    });
    assert.is(ran.code, 1, ran.stderr);
    assert.not.match(ran.stderr, /hunter2/);
    assert.match(ran.stderr, /read model Redis redis:\/\/:\*\*\*@127\.0\.0\.1:1 \(prefix palimpsest:\)/);
    assert.not.match(ran.stderr, /Unhandled error event/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('projector without REDIS_URL refuses at once: it would project for nobody', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-cli-'));
  try {
    const ran = await palimpsest(['projector'], { DATA_DIR: dataDir, PORT: '0' });
    assert.is(ran.code, 1, ran.stderr);
    assert.match(ran.stderr, /palimpsest: projector needs REDIS_URL/);
    assert.not.match(ran.stderr, /^\s+at /m);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('names that do not exist are answered with the valid ones, exit status 2', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-cli-'));
  const env = { DATA_DIR: dataDir };
  try {
    const command = await palimpsest(['serv'], env);
    assert.is(command.code, 2);
    assert.match(
      command.stderr,
      /unknown command "serv"; the commands are: serve, projector, user create, projections rebuild, projections sweep, media sweep, option get, option set, replay/,
    );

    const sub = await palimpsest(['projections', 'rebuilt'], env);
    assert.is(sub.code, 2);
    assert.match(
      sub.stderr,
      /unknown command "projections rebuilt"; it is one of: projections rebuild, projections sweep/,
    );

    const projection = await palimpsest(['projections', 'rebuild', 'posts'], env);
    assert.is(projection.code, 2);
    assert.match(
      projection.stderr,
      /palimpsest projections rebuild: unknown projection "posts"; the projections are: [a-z-]+(, [a-z-]+)+/,
    );
    assert.match(projection.stderr, /\bcontent\b/);
    assert.match(projection.stderr, /usage: palimpsest projections rebuild \[NAME\.\.\.\]/);

    const role = await palimpsest(['user', 'create', '--login', 'x', '--role', 'boss'], env);
    assert.is(role.code, 2);
    assert.match(role.stderr, /unknown role "boss"; the roles are: .*administrator/);

    const option = await palimpsest(['replay', '--until', '1', '--format', 'csv'], env);
    assert.is(option.code, 2);
    assert.match(option.stderr, /palimpsest replay: Unknown option '--format'/);
    assert.match(option.stderr, /usage: palimpsest replay --until/);

    const positional = await palimpsest(['serve', 'now'], env);
    assert.is(positional.code, 2);
    assert.match(positional.stderr, /palimpsest serve: .*'now'/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('replay --until takes a date alone', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-cli-'));
  try {
    const ran = await palimpsest(['replay', '--until', '2020-01-01'], { DATA_DIR: dataDir });
    assert.is(ran.code, 0, ran.stderr);
    const state = JSON.parse(ran.stdout) as { until: { position: number; time: string | null } };
    assert.equal(state.until, { position: 0, time: null }, 'nothing had happened by then on a new site');
    const wrong = await palimpsest(['replay', '--until', '2020-02-30'], { DATA_DIR: dataDir });
    assert.is(wrong.code, 2);
    assert.match(wrong.stderr, /not a date of the calendar/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('help lists every command on stdout; a command says its usage; --version; no command is a usage error', async () => {
  const all = await palimpsest(['help'], {});
  assert.is(all.code, 0);
  for (const command of ['serve', 'projector', 'user create', 'projections rebuild', 'projections sweep', 'replay'])
    assert.match(all.stdout, new RegExp(`palimpsest ${command}`));
  for (const command of ['replay', 'projector']) {
    const one = await palimpsest([command, '--help'], {});
    assert.is(one.code, 0);
    assert.match(one.stdout, new RegExp(`^usage: palimpsest ${command}`));
  }
  const version = await palimpsest(['--version'], {});
  assert.is(version.code, 0);
  const { version: declared } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.is(version.stdout.trim(), `palimpsest ${declared}`);
  // After a command, a bare `help` is a value, not a request for help.
  const named = await palimpsest(['option', 'get', 'help'], {});
  assert.is(named.code, 2);
  assert.match(named.stderr, /unknown option "help"/);
  const none = await palimpsest([], {});
  assert.is(none.code, 2);
  assert.is(none.stdout, '');
  assert.match(none.stderr, /palimpsest serve/);
});

test.run();
