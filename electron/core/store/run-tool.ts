import spawn from 'cross-spawn';
import { UserError } from '../errors.ts';

export interface ToolRun {
  /** absolute path of the program (npm, uv, docker) */
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** ms before it is killed (a hung registry must not hang an approval forever) */
  timeoutMs: number;
}

export interface ToolResult {
  stdout: string;
  stderr: string;
}

/**
 * Runs a package tool (npm, uv, docker) without a shell and collects what it printed; rejects with a
 * UserError quoting the end of its stderr when it fails. `what` names the step for that message
 * ("resolving pkg@latest").
 */
export function runTool(run: ToolRun, what: string): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(run.command, run.args, {
      cwd: run.cwd,
      env: run.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new UserError(`${what}: cannot run ${run.command}: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0) return resolve({ stdout, stderr });
      const why =
        signal === 'SIGKILL' ? `no answer in ${Math.round(run.timeoutMs / 1000)} s` : lastLines(stderr);
      reject(new UserError(`${what} failed: ${why || `exit code ${code}`}`));
    });
  });
}

/** The last few meaningful lines of a tool's error output (npm's log paths left out). */
export function lastLines(text: string, count = 6): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line && !/A complete log of this run|^npm (error|ERR!)\s*$/.test(line))
    .slice(-count)
    .join('\n');
}
