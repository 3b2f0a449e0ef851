import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
import rules from '../../../.dependency-cruiser.mjs';

/**
 * The import rules of .dependency-cruiser.mjs against a small tree laid out like the repository, with
 * one planted violation per rule: each must be reported under its rule, and allowed imports must not.
 * (`npm test` runs the same rules over the real tree; this shows they can fail.)
 */
const tree: Record<string, string> = {
  // allowed: downward, within a layer, shared from anywhere
  'shared/ok.ts': `export const ok = 1;`,
  'electron/core/clock.ts': `import { ok } from '../../shared/ok.ts'; export const clock = ok;`,
  'electron/core/trust/pin.ts': `import { clock } from '../clock.ts'; export const pin = clock;`,
  'electron/core/config/edit.ts': `import { pin } from '../trust/pin.ts'; export const edit = pin;`,
  'electron/core/bridge/routes.ts': `import { edit } from '../config/edit.ts'; export const routes = edit;`,
  'electron/core/core.ts': `import { edit } from './config/edit.ts'; export class Core { e = edit; }`,
  'electron/headless/serve.ts': `import { Core } from '../core/core.ts'; export const serve = new Core();`,
  'electron/cli/main.ts': `import { serve } from '../headless/serve.ts'; export const main = serve;`,
  'renderer/src/view.ts': `import { ok } from '../../shared/ok.ts'; export const view = ok;`,
  // one violation each
  'electron/core/secrets/move.ts': `import { edit } from '../config/edit.ts'; export const move = edit;`,
  'electron/core/editors/plan.ts': `import { changes } from './changes.ts'; export const plan = () => changes;`,
  'electron/core/editors/changes.ts': `import { plan } from './plan.ts'; export const changes = () => plan;`,
  'electron/core/fs/window.ts': `import { app } from 'electron'; export const w = app;`,
  'electron/core/fs/cli.ts': `import { main } from '../../cli/main.ts'; export const c = main;`,
  'shared/leak.ts': `import { clock } from '../electron/core/clock.ts'; export const leak = clock;`,
  'renderer/src/reach.ts': `import { edit } from '../../electron/core/config/edit.ts'; export const r = edit;`,
  'electron/headless/uses-cli.ts': `import { main } from '../cli/main.ts'; export const u = main;`,
  'electron/core/bridge/takes-core.ts': `import type { Core } from '../core.ts'; export type T = Core;`,
  'electron/core/fs/gone.ts': `export { moved } from './moved-away.ts';`,
  'electron/core/newplace/thing.ts': `import { clock } from '../clock.ts'; export const t = clock;`,
  'electron/core/loose.ts': `export const loose = 1;`,
  'electron/core/fs/uses-loose.ts': `import { loose } from '../loose.ts'; export const l = loose;`,
};

const root = mkdtempSync(join(tmpdir(), 'sb-import-rules-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function violations(): Promise<string[]> {
  for (const [file, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text + '\n');
  }
  const { options, forbidden } = rules;
  const result = await cruise(['electron', 'shared', 'renderer'], {
    ...options,
    tsConfig: undefined,
    validate: true,
    ruleSet: { forbidden },
    baseDir: root,
  });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('import rules (.dependency-cruiser.mjs)', () => {
  it('reports each planted violation under its rule, and nothing that is allowed', async () => {
    const found = await violations();
    expect(found).toEqual(
      [
        'app-relay-headless-desktop: electron/headless/uses-cli.ts -> electron/cli/main.ts',
        'app-core: electron/core/fs/cli.ts -> electron/cli/main.ts',
        'core-not-electron: electron/core/fs/window.ts -> electron',
        'core-secrets: electron/core/secrets/move.ts -> electron/core/config/edit.ts',
        'core-file-without-layer: electron/core/newplace/thing.ts -> electron/core/clock.ts',
        'core-import-without-layer: electron/core/fs/uses-loose.ts -> electron/core/loose.ts',
        'core-only-in-roots: electron/core/bridge/takes-core.ts -> electron/core/core.ts',
        'not-to-unresolvable: electron/core/fs/gone.ts -> ./moved-away.ts',
        'no-circular: electron/core/editors/changes.ts -> electron/core/editors/plan.ts',
        'renderer-through-shared: renderer/src/reach.ts -> electron/core/config/edit.ts',
        'shared-only-shared: shared/leak.ts -> electron/core/clock.ts',
      ].sort(),
    );
  });
});
