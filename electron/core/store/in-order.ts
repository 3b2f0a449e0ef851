/**
 * `work` over `items`, at most `atOnce` running at a time, the results in the items' order. For
 * waits that overlap well (child processes, registries) without starting them all at once on a
 * small machine.
 */
export async function inOrder<T, R>(
  items: readonly T[],
  atOnce: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return results;
}
