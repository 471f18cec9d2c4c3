/**
 * A word-level diff of two texts, for showing what a change did to a field: the longest common subsequence of
 * their words (whitespace runs are words too), as runs of kept, removed and added text. Texts too long for the
 * quadratic table are shown as one removal and one addition.
 */

/** Most cells of the comparison table (words of one side times words of the other). */
const MAX_CELLS = 2_000_000;

const words = (text) => text.split(/(\s+)/).filter((word) => word !== '');

/** Runs `{ kind: 'same' | 'del' | 'ins', text }` turning `before` into `after`. */
export function wordDiff(before, after) {
  const a = words(before);
  const b = words(after);
  // The common start and end are kept as they are, so a small edit in a long text stays cheap.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const runs = [];
  const push = (kind, text) => {
    if (text === '') return;
    const last = runs[runs.length - 1];
    if (last && last.kind === kind) last.text += text;
    else runs.push({ kind, text });
  };
  push('same', a.slice(0, start).join(''));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  if (n * m > MAX_CELLS) {
    push('del', midA.join(''));
    push('ins', midB.join(''));
  } else {
    // lengths[i][j]: the longest common subsequence of midA[i..] and midB[j..].
    const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lengths[i][j] =
          midA[i] === midB[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        push('same', midA[i]);
        i++;
        j++;
      } else if (i < n && (j === m || lengths[i + 1][j] >= lengths[i][j + 1])) {
        push('del', midA[i]);
        i++;
      } else {
        push('ins', midB[j]);
        j++;
      }
    }
  }
  push('same', a.slice(endA).join(''));
  return runs;
}
