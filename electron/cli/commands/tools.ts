import { diffArrays } from 'diff';
import { parseArgs } from 'node:util';
import { ToolChangeIdSchema, type ToolChange, type ToolReview } from '../../../shared/api.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { offlineTools as offlineToolPins } from '../offline-core.ts';
import { UsageError } from '../output.ts';
import { ask, interactive, isYes } from '../prompt.ts';
import { usageOf } from '../help.ts';

const USAGE = usageOf('tools');

/**
 * Shows what a server gives editors' models — its tools, prompts and instructions — as editors get
 * them: the pinned ones, and those held back because they are new or changed since they were
 * approved, with a readable diff. `--accept` accepts exactly the
 * change shown (its id): a person confirms at a [y/N] prompt; a script passes --yes (accept what this
 * run shows) or --change ID (only the change an earlier run showed). A change that changed again in
 * between is refused, like an approval of a config that changed.
 */
export async function toolsCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
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
    ctx.output.out(`\nNothing to accept: what "${name}" gives is what was approved.`);
    return 0;
  }
  let id = values.change;
  if (id === undefined && values.yes) id = change.change;
  if (id === undefined && interactive(ctx)) {
    const answer = await ask(ctx, `\nGive your editors what "${name}" changed, as shown above? [y/N] `);
    if (!isYes(answer)) {
      ctx.output.out('Not accepted: the changes stay held back.');
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
  ctx.output.out(`\nAccepted: editors now get what "${name}" gives, as shown.`);
  return 0;
}

async function offlineTools(
  ctx: Pick<CliContext, 'home' | 'env' | 'commandPath' | 'tokenFiles'>,
  name: string,
) {
  const { tools } = await offlineToolPins(ctx);
  return {
    review: () => Promise.resolve(tools.toolReview(name)),
    accept: (id: string) => Promise.resolve(tools.acceptTools(name, id)),
  };
}

/** What is pinned, then the change (names and lines are display-safe already). */
function show(ctx: Pick<CliContext, 'output'>, review: ToolReview): void {
  if (!review.known) {
    ctx.output.out(
      `"${review.server}" (${review.state}) has not listed its tools since it was approved; they are pinned when it first does.`,
    );
    return;
  }
  const held =
    review.tools.filter((t) => t.pin !== 'pinned').length +
    review.prompts.filter((p) => p.pin !== 'pinned').length +
    (review.instructions === 'new' || review.instructions === 'changed' ? 1 : 0);
  const excluded = review.tools.filter((t) => t.excluded).length;
  const gives = [
    excluded
      ? `${review.tools.length - excluded} of its ${count(review.tools.length, 'tool')} (${excluded} turned off by "tools" in servers.json)`
      : count(review.tools.length, 'tool'),
    ...(review.prompts.length ? [count(review.prompts.length, 'prompt')] : []),
    ...(review.instructions !== 'none' ? ['instructions'] : []),
  ];
  ctx.output.out(
    `"${review.server}" (${review.state}) gives ${listed(gives)}` +
      (held ? `; ${held} held back from your editors:` : ', all as approved:'),
  );
  for (const tool of review.tools)
    ctx.output.out(
      `  ${tool.name}${tool.excluded ? '   (turned off by "tools" in servers.json: editors never get it)' : tool.pin === 'pinned' ? '' : `   (${tool.pin}: held back)`}`,
    );
  for (const prompt of review.prompts)
    ctx.output.out(
      `  prompt ${prompt.name}${prompt.pin === 'pinned' ? '' : `   (${prompt.pin}: held back)`}`,
    );
  if (review.instructions === 'pinned') ctx.output.out('  instructions');
  if (review.instructions === 'new') ctx.output.out('  instructions   (new: held back, editors get none)');
  if (review.instructions === 'changed')
    ctx.output.out('  instructions   (changed: held back, editors get the approved ones)');
  if (review.change) showChange(ctx, review.change);
}

function showChange(ctx: Pick<CliContext, 'output'>, change: ToolChange): void {
  const since = change.pinnedAt
    ? ` since they were approved (${new Date(change.pinnedAt).toLocaleString()})`
    : '';
  ctx.output.out(`\nChanged${since}:`);
  if (change.baselineMissing)
    ctx.output.out('  (what was approved is not on record any more, so everything shows as new)');
  if (change.instructions) {
    ctx.output.out(`\n${change.instructions.before === null ? '+ new' : '~ changed'} instructions`);
    diff(ctx, change.instructions.before ?? [], change.instructions.after);
  }
  for (const [kind, part] of [
    ['tool', change],
    ['prompt', change.prompts],
    ['resource template', change.resourceTemplates],
  ] as const) {
    for (const item of part.added) {
      ctx.output.out(`\n+ new ${kind} ${item.name}`);
      for (const line of item.lines) ctx.output.out(`    ${line}`);
    }
    for (const item of part.changed) {
      ctx.output.out(`\n~ changed ${kind} ${item.name}`);
      diff(ctx, item.before, item.after);
    }
    for (const removed of part.removed)
      ctx.output.out(`\n− ${kind} ${removed} is no longer listed (gone for editors too)`);
  }
  ctx.output.out(`\nChange id: ${change.change}`);
  ctx.output.out(`Accept it with: switchboard tools ${change.server} --accept`);
}

function diff(ctx: Pick<CliContext, 'output'>, before: string[], after: string[]): void {
  for (const part of diffArrays(before, after)) {
    const mark = part.added ? '  + ' : part.removed ? '  - ' : '    ';
    for (const line of part.value) ctx.output.out(`${mark}${line}`);
  }
}

/** "2 tools, 1 prompt and instructions" */
function listed(parts: string[]): string {
  return parts.length < 2 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
