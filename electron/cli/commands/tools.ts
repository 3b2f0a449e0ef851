import { diffArrays } from 'diff';
import { parseArgs } from 'node:util';
import { ToolChangeIdSchema, type ToolChange, type ToolReview } from '../../../shared/api.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { offlineCore } from '../offline-core.ts';
import { UsageError } from '../output.ts';
import { ask, interactive, isYes } from '../prompt.ts';
import { usageOf } from '../help.ts';

const USAGE = usageOf('tools');

/**
 * Shows a server's tools as editors get them: the pinned ones, and those held back because they are
 * new or changed since its tools were approved, with a readable diff. `--accept` accepts exactly the
 * change shown (its id): a person confirms at a [y/N] prompt; a script passes --yes (accept what this
 * run shows) or --change ID (only the change an earlier run showed). A change that changed again in
 * between is refused, like an approval of a config that changed.
 */
export async function toolsCommand(ctx: CliContext, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean' },
      accept: { type: 'boolean' },
      yes: { type: 'boolean', short: 'y' },
      change: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [name] = positionals;
  if (!name || positionals.length !== 1) throw new UsageError(USAGE);
  if ((values.yes || values.change !== undefined) && !values.accept)
    throw new UsageError(`--yes and --change go with --accept\n${USAGE}`);
  if (values.yes && values.change !== undefined) throw new UsageError(USAGE);
  if (values.change !== undefined && !ToolChangeIdSchema.safeParse(values.change).success)
    throw new UsageError(`--change takes the 64 hex digits shown with the change\n${USAGE}`);

  const client = InstanceClient.connect(ctx.home);
  const tools = client
    ? { review: () => client.toolReview(name), accept: (id: string) => client.acceptTools(name, id) }
    : await offlineTools(ctx, name);
  const review = await tools.review();
  if (values.json) {
    ctx.output.out(JSON.stringify(review, null, 2));
    if (!values.accept) return 0;
  } else show(ctx, review);
  if (!values.accept) return 0;

  const change = review.change;
  if (!change) {
    ctx.output.out(`\nNothing to accept: the tools of "${name}" are the ones approved.`);
    return 0;
  }
  let id = values.change;
  if (id === undefined && values.yes) id = change.change;
  if (id === undefined && interactive(ctx)) {
    const answer = await ask(ctx, `\nGive your editors the changed tools of "${name}" shown above? [y/N] `);
    if (!isYes(answer)) {
      ctx.output.out('Not accepted: the changed tools stay held back.');
      return 1;
    }
    id = change.change;
  }
  if (id === undefined) {
    ctx.output.err(
      `\nNot accepted: nobody confirmed it. To accept exactly the change shown above, run:\n` +
        `  switchboard tools ${name} --accept --change ${change.change}\n` +
        `(or run it in a terminal and answer y; --yes accepts whatever a run shows, for scripts)`,
    );
    return 1;
  }
  await tools.accept(id);
  ctx.output.out(`\nAccepted: editors now get the tools of "${name}" as shown.`);
  return 0;
}

async function offlineTools(ctx: CliContext, name: string) {
  const core = await offlineCore(ctx);
  return {
    review: () => Promise.resolve(core.toolReview(name)),
    accept: (id: string) => Promise.resolve(core.acceptTools(name, id)),
  };
}

/** The tools, then the change (names and lines are display-safe already). */
function show(ctx: CliContext, review: ToolReview): void {
  if (!review.known) {
    ctx.output.out(
      `"${review.server}" (${review.state}) has not listed its tools since it was approved; they are pinned when it first does.`,
    );
    return;
  }
  const held = review.tools.filter((t) => t.pin !== 'pinned').length;
  ctx.output.out(
    `"${review.server}" (${review.state}) lists ${count(review.tools.length, 'tool')}` +
      (held ? `; ${held} held back from your editors:` : ', all as approved:'),
  );
  for (const tool of review.tools)
    ctx.output.out(`  ${tool.name}${tool.pin === 'pinned' ? '' : `   (${tool.pin}: held back)`}`);
  if (review.change) showChange(ctx, review.change);
}

function showChange(ctx: CliContext, change: ToolChange): void {
  const since = change.pinnedAt
    ? ` since they were approved (${new Date(change.pinnedAt).toLocaleString()})`
    : '';
  ctx.output.out(`\nChanged${since}:`);
  if (change.baselineMissing)
    ctx.output.out('  (the approved tools are not on record any more, so every tool shows as new)');
  for (const tool of change.added) {
    ctx.output.out(`\n+ new tool ${tool.name}`);
    for (const line of tool.lines) ctx.output.out(`    ${line}`);
  }
  for (const tool of change.changed) {
    ctx.output.out(`\n~ changed ${tool.name}`);
    for (const part of diffArrays(tool.before, tool.after)) {
      const mark = part.added ? '  + ' : part.removed ? '  - ' : '    ';
      for (const line of part.value) ctx.output.out(`${mark}${line}`);
    }
  }
  for (const removed of change.removed)
    ctx.output.out(`\n− ${removed} is no longer listed (gone for editors too)`);
  ctx.output.out(`\nChange id: ${change.change}`);
  ctx.output.out(`Accept it with: switchboard tools ${change.server} --accept`);
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
