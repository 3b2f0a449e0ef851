import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The source files under `dir` (relative to `repo`) whose names match `pattern`, declaration files
 * and installed or built folders left out: what the architecture checks read.
 */
export function sourceFiles(repo: string, dir: string, pattern: RegExp): string[] {
  let names: string[];
  try {
    names = readdirSync(join(repo, dir));
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'stubs') continue;
    if (pattern.test(name) && !/\.d\.ts$/.test(name)) files.push(path);
    else if (!name.includes('.')) files.push(...sourceFiles(repo, path, pattern));
  }
  return files;
}
