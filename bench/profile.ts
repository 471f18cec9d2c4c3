/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): where the time of the last `seconds` of the run went (the
 * load phase; start-up and seeding come before it), as self time per function and per file or package,
 * and inclusive time per function of the project. `run.ts --profile` uses it; it also runs on its own:
 *
 *   npx tsx bench/profile.ts FILE.cpuprofile [SECONDS]
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './procs';

interface CallFrame {
  functionName: string;
  url: string;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** `src/rest/dispatch.ts` (also for its compiled file), `koa`, `node:internal/...`, or `(native)`. */
function place(url: string): string {
  if (url === '') return '(native)';
  const file = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = file.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (!file.startsWith(ROOT)) return file;
  // The server runs its build (bin/build.js): dist/<build>/src/x.js is named as its source, src/x.ts.
  const relative = path.relative(ROOT, file);
  const built = /^dist\/[^/]+\/((?:src|projections)\/.*)\.js$/.exec(relative);
  return built ? `${built[1]}.ts` : relative;
}

const isProjectFile = (where: string) => /^(src|projections)\//.test(where);

/** No line numbers: tsx hands V8 each module as one line, so they would all read 1. */
const label = (frame: CallFrame): string => `${frame.functionName || '(anonymous)'} ${place(frame.url)}`;

export function summarizeProfile(file: string, lastSeconds: number, top = 15): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Sample i was taken at startTime + the sum of the first i+1 deltas (microseconds).
  const windowStart = profile.endTime - lastSeconds * 1e6;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const places = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < windowStart) return;
    const node = byId.get(id)!;
    total++;
    if (node.callFrame.functionName === '(idle)') {
      idle++;
      return;
    }
    const own = label(node.callFrame);
    self.set(own, (self.get(own) ?? 0) + 1);
    const where = place(node.callFrame.url);
    const group = where.startsWith('node:') ? 'node internals' : where;
    places.set(group, (places.get(group) ?? 0) + 1);
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)!.callFrame;
      if (!isProjectFile(place(frame.url))) continue;
      const name = label(frame);
      if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
      seen.add(name);
    }
  });
  const busy = total - idle;
  const pct = (n: number) => `${((100 * n) / Math.max(1, busy)).toFixed(1).padStart(5)}%`;
  const list = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, n]) => `  ${pct(n)}  ${name}`)
      .join('\n');
  return [
    `${path.basename(file)}: ${Number.isFinite(lastSeconds) ? `last ${lastSeconds} s` : 'whole run'}, ${total} samples, ${((100 * idle) / Math.max(1, total)).toFixed(0)}% idle; shares of busy time`,
    'self time, by function:',
    list(self),
    'inclusive time, project functions:',
    list(inclusive),
    'self time, by file or package ((native): V8 builtins such as JSON.stringify, socket writes, GC):',
    list(places),
  ].join('\n');
}

const isEntryPoint = process.argv[1] && import.meta.url === new URL(`file://${path.resolve(process.argv[1])}`).href;
if (isEntryPoint) {
  const [file, seconds] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/profile.ts FILE.cpuprofile [SECONDS]');
    process.exit(2);
  }
  console.log(summarizeProfile(file, Number(seconds ?? 10)));
}
