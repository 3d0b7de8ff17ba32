import type { Ora } from "ora";

export interface Spinner {
  text(message: string): void;
  succeed(message?: string): void;
  fail(message?: string): void;
  stop(): void;
}

const silent: Spinner = { text: () => undefined, succeed: () => undefined, fail: () => undefined, stop: () => undefined };

/** A spinner on stderr, or nothing at all when stderr is not a terminal or output is JSON. */
export async function startSpinner(message: string, options: { json: boolean }): Promise<Spinner> {
  if (options.json || !process.stderr.isTTY || process.env["NO_COLOR"]) return silent;
  const { default: ora } = await import("ora");
  const spinner: Ora = ora({ text: message, stream: process.stderr }).start();
  return {
    text: (next) => {
      spinner.text = next;
    },
    succeed: (final) => {
      spinner.succeed(final);
    },
    fail: (final) => {
      spinner.fail(final);
    },
    stop: () => {
      spinner.stop();
    },
  };
}
