/**
 * A desktop app Switchboard may look for and restart (Claude Desktop): the names its processes run
 * under on each OS, matched exactly, and the name macOS knows it by.
 */
export interface DesktopApp {
  /** "Claude Desktop", for messages */
  label: string;
  /** program names (Linux: /proc comm or argv[0]'s basename; macOS: the executable's name; Windows: the image name) */
  processNames: { linux: readonly string[]; darwin: readonly string[]; win32: readonly string[] };
  /** the application name `osascript … quit app` and `open -a` take on macOS */
  macAppName: string;
}

/** One running process of the app, as the OS reports it. */
export interface AppProcess {
  pid: number;
  /** its parent, where the OS says (not on Windows' Get-Process) */
  ppid: number | undefined;
  /** when it started, ms since the epoch */
  startedAt: number;
  /** how far off startedAt may be (the OS's clock resolution for start times), ms */
  precisionMs: number;
  /** the executable that runs (Windows: Path; elsewhere read at restart) */
  exe?: string | undefined;
}

export type RestartResult =
  | { outcome: 'restarted'; /** the new processes, where they could be seen starting */ pids: number[] }
  | { outcome: 'not-running' };

/** How this OS lists and restarts an app; undefined answers mean "cannot tell here". */
export interface AppControl {
  /** the app's processes of this user; undefined when they cannot be listed on this OS */
  list(app: DesktopApp): Promise<AppProcess[] | undefined>;
  /** quits it and starts it again; never starts it when it is not running (then: not-running) */
  restart(app: DesktopApp): Promise<RestartResult>;
}

/** How a command ran (exit code; never rejects for a non-zero exit, only when it cannot start). */
export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}
export type Exec = (command: string, args: readonly string[]) => Promise<ExecResult>;

/**
 * Was the app started before `writtenAt` (and so read its settings file before that write)? A start
 * within the clock's precision of the write counts as after it: the app reads its file a moment
 * after its process starts, not in its first milliseconds.
 */
export function startedBefore(processes: readonly AppProcess[], writtenAt: number): boolean {
  return processes.some((p) => p.startedAt + p.precisionMs < writtenAt);
}
