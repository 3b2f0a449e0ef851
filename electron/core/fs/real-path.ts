import { realpathSync } from 'node:fs';

/** The path with every link resolved; as given when it cannot be (not there yet, a dangling link). */
export function realOrAsGiven(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
