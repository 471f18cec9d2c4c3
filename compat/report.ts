/** The readable report of a comparison run: every step with differences, then the counts. */
import type { CompatResult } from './run';
import { EXPLANATIONS } from './explanations';

const show = (value: unknown): string => {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? 'undefined');
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
};

export function printReport(result: CompatResult, write: (line: string) => void = (line) => console.log(line)): void {
  write(
    `palimpsest ${result.palimpsest.commit}${result.palimpsest.dirty ? ' (with uncommitted changes)' : ''} against WordPress ${result.reference.version} (${result.reference.url}), ${result.date}`,
  );
  if (!result.complete) write('INTERRUPTED: only the steps before the interruption were sent.');
  write('');
  for (const step of result.steps) {
    if (step.differences.length === 0) continue;
    write(
      `✗ ${step.name}: ${step.method} ${step.path} as ${step.as} → reference ${step.reference.status}, palimpsest ${step.palimpsest.status}`,
    );
    for (const d of step.differences) {
      const why = d.explanation ? `  [${d.category}: ${d.explanation}]` : '  [UNEXPLAINED]';
      write(`    ${d.kind.padEnd(7)} ${d.at}: reference ${show(d.reference)} | palimpsest ${show(d.palimpsest)}${why}`);
    }
  }
  const s = result.summary;
  write('');
  const skipped = s.skipped > 0 ? `, ${s.skipped} skipped (an id they need was not captured)` : '';
  write(
    `${s.steps} steps: ${s.identical} identical, ${s.withDifferences} with differences${skipped}; ${s.differences} differences`,
  );
  write(
    `  by kind: ${
      Object.entries(s.byKind)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none'
    }`,
  );
  write(
    `  by cause: deliberate ${s.byCategory.deliberate}, not built yet ${s.byCategory['not-built']}, bugs ${s.byCategory.bug}, unexplained ${s.byCategory.unexplained}`,
  );
  const used = new Map<string, number>();
  for (const step of result.steps)
    for (const d of step.differences) if (d.explanation) used.set(d.explanation, (used.get(d.explanation) ?? 0) + 1);
  if (used.size > 0) {
    write('');
    write('explanations:');
    for (const e of EXPLANATIONS) {
      const n = used.get(e.id);
      if (n) write(`  ${e.id} (${e.category}, ${n}): ${e.text}`);
    }
  }
}
