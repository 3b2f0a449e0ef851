export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/**
 * Line diff (longest common subsequence): what changed between the last approved launch config and
 * the one waiting for approval. Inputs are a few lines long, so O(n·m) is nothing.
 */
export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  const n = before.length;
  const m = after.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] =
        before[i] === after[j]
          ? (lcs[i + 1]?.[j + 1] ?? 0) + 1
          : Math.max(lcs[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      out.push({ kind: 'same', text: before[i] as string });
      i++;
      j++;
    } else if (i < n && (j >= m || (lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0))) {
      // On a tie the old line goes first, as in every unified diff: "− old" then "+ new".
      out.push({ kind: 'removed', text: before[i] as string });
      i++;
    } else {
      out.push({ kind: 'added', text: after[j] as string });
      j++;
    }
  }
  return out;
}
