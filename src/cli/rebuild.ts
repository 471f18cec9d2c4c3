/**
 * `palimpsest projections rebuild [NAME…]`: every projection named (all of them by default) is rebuilt in one pass over
 * the log (Projector.rebuildAll), with one progress line on stderr, redrawn in place: the projections, a bar, the
 * position reached, the rate and the time left. A line per projection on stdout as each is switched in.
 */
import type { Site } from '../site';
import type { RebuildProgress } from '../projection/projectorOptions';

/** The projections a progress line names: a few by name, more by their number. */
function label(p: RebuildProgress): string {
  const names = p.projections ?? [p.projection];
  return names.length <= 3 ? names.join(', ') : `${names.length} projections`;
}

/** A duration as a person reads it: `42 s`, `3 min 05 s`, `1 h 02 min`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** One progress line for a rebuild pass: what it rebuilds, a bar, the events folded, the rate and the time left. */
export function progressLine(p: RebuildProgress, width = 30): string {
  const done = p.head > 0 ? Math.min(1, p.applied / p.head) : 1;
  const bar = '#'.repeat(Math.round(done * width)).padEnd(width, '.');
  const left =
    p.secondsLeft === undefined
      ? ''
      : p.secondsLeft === null
        ? ', time left unknown'
        : `, ${duration(p.secondsLeft)} left`;
  return `${label(p)} [${bar}] ${Math.round(done * 100)}% ${p.applied} events, ${p.eventsPerSecond} events/s${left}`;
}

/**
 * A progress callback that redraws the pass's line on `write` (stderr), at most every `everyMs` (the projector tells
 * each projection's progress after every batch, all at the same position), and always once the head is reached.
 * `end()` ends the line.
 */
export function progressPrinter(
  write: (text: string) => void = (text) => void process.stderr.write(text),
  everyMs = 100,
) {
  let last = 0;
  let drawn = false;
  return {
    onProgress(p: RebuildProgress) {
      const now = Date.now();
      if (now - last < everyMs && p.applied < p.head) return;
      last = now;
      drawn = true;
      write(`\r${progressLine(p)}`);
    },
    end() {
      if (drawn) write('\n');
      drawn = false;
    },
  };
}

/**
 * Rebuilds the named projections (every one when `names` is empty) in one pass, printing progress on stderr and a
 * line per projection as it is switched in: `NAME: N events replayed at R events/s` (bench/rebuild.ts reads these).
 */
export async function rebuildProjections(
  site: Site,
  names: readonly string[],
  print: (line: string) => void = console.log,
): Promise<void> {
  const wanted = names.length > 0 ? names : site.projector.names;
  const printer = progressPrinter();
  const started = Date.now();
  try {
    await site.projector.rebuildAll(wanted, printer.onProgress, (result) => {
      printer.end();
      print(`${result.projection}: ${result.applied} events replayed at ${result.eventsPerSecond} events/s`);
    });
  } finally {
    printer.end();
  }
  const seconds = (Date.now() - started) / 1000;
  print(
    `rebuilt ${wanted.length} projection${wanted.length === 1 ? '' : 's'} in one pass over the log in ${duration(seconds)} (${seconds.toFixed(1)} s, the old generations' deletion included)`,
  );
}
