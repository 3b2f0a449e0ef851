// Apart from shared/status.ts (zod schemas): `switchboard status` uses it on its quick way, which must
// not load zod (docs/performance.md, "switchboard status").

/** ["tools", "prompts", "instructions"] → "tools, prompts and instructions". */
export function wordList(words: readonly string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
