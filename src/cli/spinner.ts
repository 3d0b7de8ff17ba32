import type { Ora } from "ora";

export interface Spinner {
  text(message: string): void;
  stop(): void;
}

const silent: Spinner = { text: () => undefined, stop: () => undefined };

/**
 * A spinner on stderr, or nothing at all when stderr is not a terminal or output is JSON. A
 * terminal that reports no width (some CI and editor shells) gets none either: ora divides by it,
 * and each redraw then erased lines without end.
 */
export async function startSpinner(message: string, options: { json: boolean }): Promise<Spinner> {
  if (options.json || !process.stderr.isTTY || process.env["NO_COLOR"] || !(process.stderr.columns > 0)) return silent;
  const { default: ora } = await import("ora");
  const spinner: Ora = ora({ text: message, stream: process.stderr }).start();
  return {
    text: (next) => {
      spinner.text = next;
    },
    stop: () => {
      spinner.stop();
    },
  };
}
