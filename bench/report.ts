/**
 * The benchmark's results: the one table it prints, the verdict on each of the performance targets, the file each
 * run writes under bench/results/ (one per run, not committed), and the one "Latest result" section of
 * docs/performance.md, which a run replaces between its two markers.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LoadResult } from './load';

export type ScenarioKey =
  | 'list'
  | 'list100'
  | 'page500'
  | 'filtered'
  | 'search'
  | 'single'
  | 'embed'
  | 'create'
  | 'patch';

/** A measured load (with the share of its requests the server's response cache answered, when it has one). */
export type LoadedCell = LoadResult & { fromCache?: number };

/** A measured load, or why there is no figure. */
export type Cell = LoadedCell | { na: string };

export interface Startup {
  /** From spawn to the "palimpsest serving" line. */
  ms: number;
  /** The server's own "ready in" figure: opening the site and replaying the log (or loading its snapshot). */
  readyMs: number;
  /** It loaded the read-model snapshot a clean stop wrote, then caught up from the log. */
  snapshot?: boolean;
  events: number;
}

export interface BackendFigures {
  http: Partial<Record<ScenarioKey, Cell>>;
  /** List and single-post figures per number of posts. */
  scaled: Map<number, { list: Cell; single: Cell }>;
  startup: Map<number, Startup>;
  rssAfterSeeding: Map<number, number | null>;
  rssAfterReads: Map<number, number | null>;
  /**
   * Events per second replayed into the read model, per number of posts; `bound`: the most this machine allows, as
   * measured in the same run (in memory: bench/replayFloor.ts; Redis: the events over Redis's own CPU seconds).
   */
  rebuild: Map<
    number,
    { events: number; eventsPerSecond: number; how: string; bound?: { eventsPerSecond: number; what: string } }
  >;
  readYourWrites: string | null;
}

export interface RunResults {
  date: Date;
  machine: string;
  posts: number;
  scales: number[];
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  seeding: { posts: number; seconds: number; concurrency: number } | null;
  ceiling: Cell;
  ceilingBytes: number;
  /** Whether the servers ran with the shared response cache (the default; off with --no-response-cache). */
  responseCache?: boolean;
  labels: Record<ScenarioKey, string>;
  memory: BackendFigures;
  redis: BackendFigures | { na: string };
  wordpress: { http: Partial<Record<ScenarioKey, Cell>>; posts: number } | { na: string };
}

export const emptyFigures = (): BackendFigures => ({
  http: {},
  scaled: new Map(),
  startup: new Map(),
  rssAfterSeeding: new Map(),
  rssAfterReads: new Map(),
  rebuild: new Map(),
  readYourWrites: null,
});

const SCENARIOS: ScenarioKey[] = [
  'list',
  'list100',
  'page500',
  'filtered',
  'search',
  'single',
  'embed',
  'create',
  'patch',
];

/**
 * WordPress's creates per second that the create target is set against: the bench does not write to the shared
 * reference, so it cannot measure them.
 */
const WORDPRESS_CREATES_PER_SECOND = 25;

const isLoad = (cell: Cell | undefined): cell is LoadedCell => cell !== undefined && !('na' in cell);
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (Number.isNaN(n) ? '–' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));
const mb = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${n.toFixed(0)} MB`);
const seconds = (n: number) => `${(n / 1000).toFixed(2)} s`;

function cellText(cell: Cell | undefined): string {
  if (cell === undefined) return '–';
  if (!isLoad(cell)) return `n/a (${cell.na})`;
  const problems = cell.non2xx + cell.errors + cell.timeouts;
  const warning = problems > 0 ? ` ⚠ ${int(cell.non2xx)} non-2xx, ${int(cell.errors)} errors` : '';
  const cached = cell.fromCache === undefined ? '' : ` · ${(cell.fromCache * 100).toFixed(0)}% cached`;
  return `${int(cell.requestsPerSecond)}/s · ${ms(cell.p50)} / ${ms(cell.p99)} ms${cached}${warning}`;
}

function ratio(a: Cell | undefined, b: Cell | undefined, as: 'percent' | 'times'): string {
  if (!isLoad(a) || !isLoad(b) || b.requestsPerSecond === 0) return '–';
  const r = a.requestsPerSecond / b.requestsPerSecond;
  return as === 'percent' ? `${(r * 100).toFixed(0)}%` : `${r >= 10 ? r.toFixed(0) : r.toFixed(1)}×`;
}

const figuresOf = (r: RunResults): { memory: BackendFigures; redis: BackendFigures | null } => ({
  memory: r.memory,
  redis: 'na' in r.redis ? null : r.redis,
});

export function renderTable(r: RunResults): string {
  const { memory, redis } = figuresOf(r);
  const wp = 'na' in r.wordpress ? null : r.wordpress;
  const redisNa = 'na' in r.redis ? `n/a (${r.redis.na})` : '–';
  const wpNa = 'na' in r.wordpress ? `n/a (${r.wordpress.na})` : '–';
  const rows: string[][] = [];
  const header = [
    'measure',
    'in-memory read model',
    '÷ ceiling',
    '× WordPress',
    'Redis read model',
    '÷ ceiling',
    '× WordPress',
    'WordPress',
  ];
  for (const key of SCENARIOS) {
    const m = memory.http[key];
    const d = redis?.http[key];
    const w = wp?.http[key];
    rows.push([
      r.labels[key],
      cellText(m),
      ratio(m, r.ceiling, 'percent'),
      ratio(m, w, 'times'),
      redis ? cellText(d) : redisNa,
      ratio(d, r.ceiling, 'percent'),
      ratio(d, w, 'times'),
      wp ? cellText(w) : wpNa,
    ]);
  }
  rows.push([
    'ceiling: bare koa + @koa/router, same body',
    cellText(r.ceiling),
    '100%',
    '',
    '',
    '',
    '',
    `${int(r.ceilingBytes)}-byte body`,
  ]);
  if (r.scales.length > 1) {
    for (const scale of r.scales) {
      for (const key of ['list', 'single'] as const) {
        const m = memory.scaled.get(scale)?.[key];
        const d = redis?.scaled.get(scale)?.[key];
        rows.push([
          `${r.labels[key]}, ${int(scale)} posts`,
          cellText(m),
          ratio(m, r.ceiling, 'percent'),
          '',
          redis ? cellText(d) : redisNa,
          ratio(d, r.ceiling, 'percent'),
          '',
          '',
        ]);
      }
    }
  }
  const nonHttp = (label: string, m: string, d: string) =>
    rows.push([label, m, '', '', redis ? d : redisNa, '', '', '']);
  if (r.seeding) {
    const rate = r.seeding.posts / r.seeding.seconds;
    nonHttp(
      `seeding: POST /core/v2/posts, ${r.seeding.concurrency} concurrent`,
      `${int(rate)} posts/s (${int(r.seeding.posts)} in ${r.seeding.seconds.toFixed(1)} s)`,
      '',
    );
  }
  for (const scale of r.scales) {
    const mStart = memory.startup.get(scale);
    const dStart = redis?.startup.get(scale);
    nonHttp(
      `start-up with ${int(scale)} posts (spawn → serving; server's own figure)`,
      mStart
        ? `${seconds(mStart.ms)} (${seconds(mStart.readyMs)}), ${mStart.snapshot ? `loads its read-model snapshot (log of ${int(mStart.events)} events)` : `replays ${int(mStart.events)} events`}`
        : '–',
      dStart ? `${seconds(dStart.ms)} (${seconds(dStart.readyMs)}), resumes from its checkpoint` : '–',
    );
    const mRebuild = memory.rebuild.get(scale);
    const dRebuild = redis?.rebuild.get(scale);
    const rebuildCell = (rebuild: typeof mRebuild) =>
      rebuild
        ? `${int(rebuild.eventsPerSecond)} events/s (${rebuild.how})${rebuild.bound ? `; at most ${int(rebuild.bound.eventsPerSecond)} events/s here (${rebuild.bound.what})` : ''}`
        : '–';
    nonHttp(`projection rebuild, ${int(scale)} posts`, rebuildCell(mRebuild), rebuildCell(dRebuild));
    nonHttp(
      `resident memory with ${int(scale)} posts: after seeding / after restart and reads`,
      `${mb(memory.rssAfterSeeding.get(scale))} / ${mb(memory.rssAfterReads.get(scale))}`,
      dStart ? `– / ${mb(redis?.rssAfterReads.get(scale))}` : '–',
    );
  }
  if (memory.readYourWrites || redis?.readYourWrites)
    nonHttp(
      'read-your-writes check (POST, then GET item and list at once)',
      memory.readYourWrites ?? '–',
      redis?.readYourWrites ?? '–',
    );

  const escapeCell = (text: string) => text.replaceAll('|', '\\|');
  const line = (cells: string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

interface Verdict {
  target: string;
  status: 'met' | 'not met' | 'not measured' | 'partly measured, met so far';
  detail: string[];
}

interface Check {
  label: string;
  /** null: not measured. */
  value: number | null;
  pass: (value: number) => boolean;
  show: (value: number) => string;
}

function verdict(target: string, checks: Check[]): Verdict {
  const measured = checks.filter((c) => c.value !== null);
  const failed = measured.filter((c) => !c.pass(c.value!));
  const status =
    measured.length === 0
      ? 'not measured'
      : failed.length > 0
        ? 'not met'
        : measured.length < checks.length
          ? 'partly measured, met so far'
          : 'met';
  const detail = checks.map((c) =>
    c.value === null ? `${c.label}: not measured` : `${c.label}: ${c.show(c.value)} ${c.pass(c.value) ? '✓' : '✗'}`,
  );
  return { target, status, detail };
}

export function evaluateTargets(r: RunResults): Verdict[] {
  const { memory, redis } = figuresOf(r);
  const wp = 'na' in r.wordpress ? null : r.wordpress;
  const rps = (cell: Cell | undefined) => (isLoad(cell) && cell.ok > 0 ? cell.requestsPerSecond : null);
  const ceiling = rps(r.ceiling);
  const share = (cell: Cell | undefined) => (rps(cell) !== null && ceiling ? rps(cell)! / ceiling : null);
  const times = (cell: Cell | undefined, reference: Cell | undefined) =>
    rps(cell) !== null && rps(reference) ? rps(cell)! / rps(reference)! : null;
  const pct = (v: number) => `${(v * 100).toFixed(0)}% of the ceiling`;
  const x = (v: number) => `${v.toFixed(0)}× WordPress`;
  const atLeast = (min: number) => (v: number) => v >= min;
  const p99 = (cell: Cell | undefined) => (isLoad(cell) && cell.ok > 0 ? cell.p99 : null);
  const scaleNote = r.posts === 10_000 ? '' : ` (this run: ${int(r.posts)} posts)`;

  const verdicts: Verdict[] = [];
  verdicts.push(
    verdict(
      `Default post list with 10,000 posts${scaleNote}: ≥ 50% of the ceiling in memory, ≥ 35% on Redis, ≥ 100× WordPress, p99 < 10 ms`,
      [
        { label: 'in memory', value: share(memory.http.list), pass: atLeast(0.5), show: pct },
        { label: 'Redis', value: share(redis?.http.list), pass: atLeast(0.35), show: pct },
        { label: 'in memory vs WordPress', value: times(memory.http.list, wp?.http.list), pass: atLeast(100), show: x },
        { label: 'Redis vs WordPress', value: times(redis?.http.list, wp?.http.list), pass: atLeast(100), show: x },
        { label: 'p99 in memory', value: p99(memory.http.list), pass: (v) => v < 10, show: (v) => `${ms(v)} ms` },
        { label: 'p99 on Redis', value: p99(redis?.http.list), pass: (v) => v < 10, show: (v) => `${ms(v)} ms` },
      ],
    ),
  );
  verdicts.push(
    verdict('Single post: ≥ 60% of the ceiling in memory, ≥ 45% on Redis', [
      { label: 'in memory', value: share(memory.http.single), pass: atLeast(0.6), show: pct },
      { label: 'Redis', value: share(redis?.http.single), pass: atLeast(0.45), show: pct },
    ]),
  );
  verdicts.push(
    verdict('per_page=100 list: ≥ 100× WordPress', [
      { label: 'in memory', value: times(memory.http.list100, wp?.http.list100), pass: atLeast(100), show: x },
      { label: 'Redis', value: times(redis?.http.list100, wp?.http.list100), pass: atLeast(100), show: x },
    ]),
  );
  verdicts.push(
    verdict('Search and filtered lists: ≥ 25% of the ceiling on Redis', [
      { label: 'search', value: share(redis?.http.search), pass: atLeast(0.25), show: pct },
      { label: 'filtered list', value: share(redis?.http.filtered), pass: atLeast(0.25), show: pct },
    ]),
  );
  const wpCreates = WORDPRESS_CREATES_PER_SECOND;
  verdicts.push(
    verdict(
      `Creates with read-your-writes: ≥ 1,500/s embedded with the in-memory read model, ≥ 1,000/s with Redis (60× WordPress's ${wpCreates}/s; creates are not run against the shared reference)`,
      [
        {
          label: 'in memory',
          value: rps(memory.http.create),
          pass: atLeast(1500),
          show: (v) => `${int(v)}/s (${(v / wpCreates).toFixed(0)}× WordPress)`,
        },
        {
          label: 'Redis',
          value: rps(redis?.http.create),
          pass: atLeast(1000),
          show: (v) => `${int(v)}/s (${(v / wpCreates).toFixed(0)}× WordPress)`,
        },
      ],
    ),
  );
  const rebuildAtN = (figures: BackendFigures | null | undefined) =>
    figures?.rebuild.get(r.posts)?.eventsPerSecond ?? null;
  // Beside each rate, the most this machine allows as measured in the run (the rebuild's `bound`).
  const rebuildShow = (figures: BackendFigures | null | undefined) => (v: number) => {
    const bound = figures?.rebuild.get(r.posts)?.bound;
    return bound
      ? `${int(v)} events/s (${((v / bound.eventsPerSecond) * 100).toFixed(0)}% of the ${int(bound.eventsPerSecond)} events/s this machine allows: ${bound.what})`
      : `${int(v)} events/s`;
  };
  verdicts.push(
    verdict('Rebuild: ≥ 200,000 events/s into memory, ≥ 50,000 into Redis', [
      {
        label: 'memory (start-up replay)',
        value: rebuildAtN(memory),
        pass: atLeast(200_000),
        show: rebuildShow(memory),
      },
      {
        label: 'Redis (projections rebuild)',
        value: rebuildAtN(redis),
        pass: atLeast(50_000),
        show: rebuildShow(redis),
      },
    ]),
  );
  const small = memory.scaled.get(1000);
  const large = memory.scaled.get(100_000);
  const smallRedis = redis?.scaled.get(1000);
  const largeRedis = redis?.scaled.get(100_000);
  const kept = (a: Cell | undefined, b: Cell | undefined) =>
    rps(a) !== null && rps(b) !== null ? rps(b)! / rps(a)! : null;
  const within = (v: number) => v >= 0.8;
  const keptShow = (v: number) => `${(v * 100).toFixed(0)}% of the 1,000-post figure`;
  verdicts.push(
    verdict(
      '100,000 posts: list and single-post throughput within 20% of the 1,000-post figures; embedded start-up < 5 s; resident memory < 500 MB',
      [
        { label: 'list in memory', value: kept(small?.list, large?.list), pass: within, show: keptShow },
        { label: 'single in memory', value: kept(small?.single, large?.single), pass: within, show: keptShow },
        { label: 'list on Redis', value: kept(smallRedis?.list, largeRedis?.list), pass: within, show: keptShow },
        { label: 'single on Redis', value: kept(smallRedis?.single, largeRedis?.single), pass: within, show: keptShow },
        {
          label: 'embedded start-up',
          value: memory.startup.get(100_000)?.ms ?? null,
          pass: (v) => v < 5000,
          show: seconds,
        },
        {
          label: 'resident memory (larger of after seeding, after restart)',
          value: memory.startup.has(100_000)
            ? Math.max(memory.rssAfterSeeding.get(100_000) ?? 0, memory.rssAfterReads.get(100_000) ?? 0)
            : null,
          pass: (v) => v < 500,
          show: (v) => mb(v),
        },
      ],
    ),
  );
  return verdicts;
}

export function renderTargets(verdicts: Verdict[]): string {
  return verdicts
    .map((v) => `- **${v.status}** — ${v.target}\n${v.detail.map((d) => `  - ${d}`).join('\n')}`)
    .join('\n');
}

export function renderRun(r: RunResults): string {
  const scales = r.scales.length > 1 ? `, scales ${r.scales.map(int).join(' / ')}` : '';
  const wp =
    'na' in r.wordpress
      ? `WordPress: ${r.wordpress.na}.`
      : `WordPress: the reference instance on 127.0.0.1:8081 with ${int(r.wordpress.posts)} post${r.wordpress.posts === 1 ? '' : 's'} (reads only; its content is shared with other work and changes between runs).`;
  return [
    `## ${r.date.toISOString().slice(0, 16).replace('T', ' ')} UTC — ${int(r.posts)} posts${scales}`,
    '',
    `Machine: ${r.machine}. autocannon, ${r.connections} connections, ${r.durationSeconds} s per figure after a ${r.warmupSeconds} s warm-up; cells are requests/s · p50 / p99 latency${r.responseCache === false ? '' : ' · the share of requests the shared response cache answered (warm-up included)'}. ${cacheNote(r)} ${wp}`,
    '',
    renderTable(r),
    '',
    '### Targets',
    '',
    renderTargets(evaluateTargets(r)),
    '',
  ].join('\n');
}

function cacheNote(r: RunResults): string {
  if (r.responseCache === undefined) return '';
  return r.responseCache
    ? "Shared response cache on, as the servers run by default (its share of CACHE_MEMORY_MB: docs/operations.md, 'Caches')."
    : 'Shared response cache off (--no-response-cache): every answer computed by the pipeline.';
}

/** The markers around the one "Latest result" section of docs/performance.md that a run replaces. */
export const LATEST_START = '<!-- npm run bench replaces everything from here to the end marker with its run -->';
export const LATEST_END = '<!-- end of the latest bench result -->';

/** The run's section one heading level down, as it sits under the "Latest result" heading of docs/performance.md. */
export const demoteHeadings = (section: string): string => section.replace(/^(#+) /gm, '#$1 ');

/**
 * The text of docs/performance.md with the run's section in place of what stood between the markers; everything
 * outside them is kept byte for byte. Throws when the markers are missing, repeated or out of order, so a run never
 * writes the result somewhere nobody expects it.
 */
export function replaceLatest(doc: string, section: string): string {
  const start = doc.indexOf(LATEST_START);
  const end = doc.indexOf(LATEST_END);
  if (start < 0 || end < 0) throw new Error(`no "Latest result" markers (${LATEST_START} … ${LATEST_END})`);
  if (doc.indexOf(LATEST_START, start + 1) >= 0 || doc.indexOf(LATEST_END, end + 1) >= 0)
    throw new Error('the "Latest result" markers appear more than once');
  if (end < start) throw new Error('the "Latest result" end marker comes before its start marker');
  return `${doc.slice(0, start + LATEST_START.length)}\n\n${demoteHeadings(section).trim()}\n\n${doc.slice(end)}`;
}

/** The run's file name under bench/results/: its UTC date and minute, e.g. 2026-11-28T16-19Z.md. */
export const resultFileName = (date: Date): string => `${date.toISOString().slice(0, 16).replace(':', '-')}Z.md`;

/** Writes the run's section to its own file in `dir` (made when missing) and returns the file's path. */
export function writeResultFile(dir: string, date: Date, section: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, resultFileName(date));
  fs.writeFileSync(file, `${section.trimEnd()}\n`);
  return file;
}

/** Replaces the "Latest result" section of the docs file with the run's. */
export function updateLatestInDocs(file: string, section: string): void {
  fs.writeFileSync(file, replaceLatest(fs.readFileSync(file, 'utf8'), section));
}
