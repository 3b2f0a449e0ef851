/** Where the line goes: stderr, only when it is a terminal (a pipe or a file gets nothing). */
export interface LineStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** How long a wait goes unremarked: most reviews answer at once. */
const QUIET_MS = 400;

/**
 * Runs `work`, and while it takes longer than a moment says so on a terminal: one line, rewritten each
 * second with the seconds waited, gone once `work` is done (so the answer prints as it would).
 */
export async function withWaitingLine<T>(
  stream: LineStream,
  text: string,
  work: () => Promise<T>,
): Promise<T> {
  if (stream.isTTY !== true) return work();
  const started = Date.now();
  let shown = false;
  const say = () => {
    shown = true;
    stream.write(`\r\x1b[2K${text} ${Math.round((Date.now() - started) / 1000)} s`);
  };
  let timer = setTimeout(function tick() {
    say();
    timer = setTimeout(tick, 1000);
  }, QUIET_MS);
  try {
    return await work();
  } finally {
    clearTimeout(timer);
    if (shown) stream.write('\r\x1b[2K');
  }
}
