/**
 * Quitting stops every server first (no orphans), exactly once, however many quit signals arrive
 * (menu, OS logout, SIGTERM). `run()` returns the same promise to every caller.
 */
export function quitSequence(steps: {
  stopCore: () => Promise<void>;
  exit: (code: number) => void;
  log?: (text: string) => void;
}) {
  let running: Promise<void> | undefined;
  return {
    get started(): boolean {
      return running !== undefined;
    },
    run(): Promise<void> {
      running ??= (async () => {
        let code = 0;
        try {
          await steps.stopCore();
        } catch (err) {
          code = 1;
          steps.log?.(
            `Switchboard: error while stopping servers: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
        steps.exit(code);
      })();
      return running;
    },
  };
}
