import type { Ora } from "ora";
import type { CliIo } from "./io.js";

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
export async function startSpinner(message: string, { out, io }: { out: { json: boolean }; io: CliIo }): Promise<Spinner> {
  const { stderr } = io;
  if (out.json || !stderr.isTTY || io.env["NO_COLOR"] || !((stderr.columns ?? 0) > 0)) return silent;
  const { default: ora } = await import("ora");
  const spinner: Ora = ora({ text: message, stream: stderr }).start();
  return {
    text: (next) => {
      spinner.text = next;
    },
    stop: () => {
      spinner.stop();
    },
  };
}
