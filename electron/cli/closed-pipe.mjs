// @ts-check
// Plain JavaScript: bin.mjs loads it before anything else.

/**
 * `switchboard status | head -3`: the reader went away, which is not an error of ours. A command stops
 * quietly; serve ignores it and runs on (its servers must stop cleanly, not because a pipe closed).
 * @param {string | undefined} command the CLI command this process runs
 */
export function endQuietlyOnClosedPipe(command) {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (/** @type {NodeJS.ErrnoException} */ err) => {
      if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
      if (command !== 'serve') process.exit(process.exitCode ?? 0);
    });
  }
}
