// Writes the layer lists of docs/development.md ("Which way imports go") from .dependency-cruiser.mjs,
// the one source of the layers the import check enforces. Run: npm run docs:layers (a unit test fails
// when the committed page is stale: test/unit/architecture/layers-doc.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { APP_LAYERS, CORE_LAYERS } from '../../.dependency-cruiser.mjs';

export const DEVELOPMENT_MD = fileURLToPath(new URL('../../docs/development.md', import.meta.url));
const START = '<!-- layers: generated from .dependency-cruiser.mjs by `npm run docs:layers` -->';
const END = '<!-- /layers -->';

interface Layer {
  name: string;
  paths: string[];
}

/** One line per layer, top first: its name, then its folders and files (wrapped under each other). */
function block(title: string, layers: readonly Layer[]): string[] {
  const width = Math.max(...layers.map((l) => l.name.length)) + 2;
  const lines = [title];
  for (const layer of [...layers].reverse()) {
    let line = '  ' + layer.name.padEnd(width);
    for (const path of layer.paths) {
      if (line.trim() !== layer.name && line.length + path.length + 1 > 104) {
        lines.push(line.trimEnd());
        line = ' '.repeat(width + 2);
      }
      line += path + ' ';
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/** The generated block: the program's layers, then the core's, top first. */
export function layersMarkdown(): string {
  return [
    START,
    '',
    '```',
    ...block('the program, top first (shared/ is below it all):', APP_LAYERS),
    '',
    ...block('inside electron/core/, top first:', CORE_LAYERS),
    '```',
    '',
    END,
  ].join('\n');
}

/** `doc` with its generated block replaced by the current one. */
export function withLayers(doc: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${DEVELOPMENT_MD} has no ${START} … ${END} block`);
  return doc.slice(0, start) + layersMarkdown() + doc.slice(end + END.length);
}

if (import.meta.main) {
  writeFileSync(DEVELOPMENT_MD, withLayers(readFileSync(DEVELOPMENT_MD, 'utf8')));
  console.log(`wrote the layers of ${DEVELOPMENT_MD}`);
}
