/** A stand-in run from the command line stops cleanly, once, on Ctrl-C or SIGTERM. */
export function closeOnSignals(close: () => Promise<void>): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
