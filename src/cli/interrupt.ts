/**
 * Runs `said` on Ctrl-C or SIGTERM, then lets the signal end the process as it would have (exit
 * 130 or 143, the locks released on the way out). Returns a function that stops watching.
 */
export function onInterrupt(said: () => void): () => void {
  const signals = ["SIGINT", "SIGTERM"] as const;
  const stop = () => signals.forEach((signal) => process.off(signal, handle));
  const handle = (signal: NodeJS.Signals) => {
    stop();
    said();
    process.kill(process.pid, signal);
  };
  signals.forEach((signal) => process.on(signal, handle));
  return stop;
}
