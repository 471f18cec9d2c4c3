/**
 * `npm run fuzz [-- --requests N --concurrency C --seed S]`: the fuzz suite's long mode. Starts a real server
 * process (`palimpsest serve`, the second instance, embedded store, on a fresh temporary DATA_DIR, 127.0.0.1 only),
 * makes the fixtures through its API, then sends N hostile requests (default 10,000) generated from the index's
 * route schemas exactly as the suite does (test/support/fuzzRequests.ts), round-robin over every route and method.
 *
 * It fails (exit 1) on any 5xx other than WordPress's own, a malformed error, a polluted answer, the server exiting,
 * or the server's resident memory not coming back near where it started (within --memory-margin MB, default 150,
 * measured after a warm-up and again after the run once the server has been idle a few seconds).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { freePort, killAllNow, rssMb, runNode, sleep, startNode, stop, waitForLine } from './procs';
import { requestsTo } from '../test/support/testSite';
import type { TestUser } from '../test/support/testSite';
import { createRouteFixtures } from '../test/support/routeFixtures';
import { describeRequest, problemsWith, requestsFor, sendFuzz } from '../test/support/fuzzRequests';
import type { FuzzRequest, Identity } from '../test/support/fuzzRequests';

const { values: options } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '4' },
    seed: { type: 'string', default: '20261129' },
    'memory-margin': { type: 'string', default: '150' },
  },
});
const total = Number(options.requests);
const concurrency = Number(options.concurrency);
const seed = Number(options.seed);
const marginMb = Number(options['memory-margin']);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-fuzz-'));
process.on('exit', () => {
  killAllNow();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));

const port = await freePort();
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  SITE_INSTANCE: 'second',
};
delete env.REDIS_URL;
delete env.EVENTSTORE_URL;
const base = `http://127.0.0.1:${port}`;

const createUser = async (login: string, role: string): Promise<TestUser> => {
  const out = await runNode(
    'palimpsest user create',
    'bin/palimpsest.js',
    ['user', 'create', '--login', login, '--role', role, '--json'],
    env,
    60_000,
  );
  const { id, app_password: password } = JSON.parse(out.trim().split('\n').pop()!) as {
    id: number;
    app_password: string;
  };
  const user = { id, login, password, auth: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` };
  // The server learns of a user made by another process through the log: wait until it signs in.
  const deadline = Date.now() + 30_000;
  while ((await fetch(`${base}/core/v2/users/me`, { headers: { authorization: user.auth } })).status !== 200) {
    if (Date.now() > deadline) throw new Error(`the server did not learn of ${login}`);
    await sleep(100);
  }
  return user;
};

const server = startNode('palimpsest serve', 'bin/palimpsest.js', { args: ['serve'], env });
await waitForLine(server, /palimpsest serving/, 120_000);
const pid = server.proc.pid;
const fixtures = await createRouteFixtures({
  request: requestsTo(base),
  createUser: (login, role) => createUser(login, role),
});
const author = await createUser('fuzzauthor', 'author');
const auth: Record<Identity, string | undefined> = {
  anonymous: undefined,
  admin: fixtures.admin.auth,
  author: author.auth,
  forged: `Basic ${Buffer.from('nobody-fuzz:not a password').toString('base64')}`,
};

// Every route and method, each with its own endless stream of generated requests, taken in turn.
const pairs = fixtures.endpoints.flatMap((endpoint) => endpoint.methods.map((method) => [endpoint, method] as const));
pairs.sort((a, b) => Number(a[1] === 'DELETE') - Number(b[1] === 'DELETE'));
const perPair = Math.ceil(total / pairs.length);
const queue: FuzzRequest[] = [];
pairs.forEach(([endpoint, method], i) => {
  for (const request of fc.sample(requestsFor(endpoint, method, fixtures.values), { seed: seed + i, numRuns: perPair }))
    queue.push(request);
});
// Interleaved, so that deletions do not all come at the end of the run but their routes are still reached last per round.
const ordered = Array.from({ length: perPair }, (_, round) => pairs.map((_, i) => queue[i * perPair + round]!))
  .flat()
  .slice(0, total);

const failures: string[] = [];
let sent = 0;
let lastForged = 0;
const statuses = new Map<number, number>();
const run = async (requests: FuzzRequest[]) => {
  let next = 0;
  const worker = async () => {
    while (next < requests.length && server.proc.exitCode === null) {
      let request = requests[next++]!;
      // Failed sign-ins are throttled per address: keep them under the limit so the other identities stay judged.
      if (request.as === 'forged') {
        if (Date.now() - lastForged < 1_500) request = { ...request, as: 'anonymous' };
        else lastForged = Date.now();
      }
      try {
        const answer = await sendFuzz(base, request, auth);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const problems = problemsWith(answer.status, answer.headers, answer.text);
        if (problems.length > 0)
          failures.push(`${describeRequest(request)}\n  -> ${answer.status} ${problems.join('; ')}`);
      } catch (error) {
        failures.push(`${describeRequest(request)}\n  -> no answer: ${(error as Error).message}`);
      }
      sent++;
      if (sent % 1_000 === 0)
        console.log(`${sent} requests, ${failures.length} failures, rss ${rssMb(pid)?.toFixed(0)} MB`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
};

// Warm-up: the first few hundred requests compile routes and fill caches; memory is measured after them.
const warmup = Math.min(500, Math.floor(ordered.length / 10));
await run(ordered.slice(0, warmup));
await sleep(3_000);
const rssBefore = rssMb(pid);
await run(ordered.slice(warmup));
await sleep(5_000);
const rssAfter = rssMb(pid);
const alive =
  server.proc.exitCode === null &&
  (await fetch(`${base}/`).then(
    (r) => r.status === 200,
    () => false,
  ));

console.log(`\n${sent} requests to ${pairs.length} routes and methods (seed ${seed}, concurrency ${concurrency})`);
console.log(
  `statuses: ${[...statuses]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}×${n}`)
    .join(' ')}`,
);
console.log(
  `server resident memory: ${rssBefore?.toFixed(0)} MB after warm-up, ${rssAfter?.toFixed(0)} MB after the run`,
);
console.log(`server ${alive ? 'still answering' : 'NOT answering'}; ${failures.length} failures`);
for (const failure of failures.slice(0, 30)) console.log(failure);
const grewTooMuch = rssBefore !== null && rssAfter !== null && rssAfter - rssBefore > marginMb;
if (grewTooMuch) console.log(`memory grew by ${(rssAfter! - rssBefore!).toFixed(0)} MB, more than ${marginMb} MB`);
await stop(server);
process.exit(failures.length > 0 || !alive || grewTooMuch ? 1 : 0);
