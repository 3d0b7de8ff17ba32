/**
 * ONNX Runtime's session options for a model run on `threads` threads (its own default, one per
 * core, when unset). Its pool threads do not spin-wait for the next run: by default they spin
 * after each one, and a search, which embeds its query and then reads LanceDB on the same two
 * cores, paid for the spinning: 52 ms of CPU per memory search at 10k, 27 without (the embedding
 * itself 6.3 → 3.5 ms; test/bench/README.md, peers).
 */
export function onnxSessionOptions(threads?: number): Record<string, unknown> {
  return {
    ...(threads && threads > 0 ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}),
    extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
  };
}
