#!/usr/bin/env node
// glibc's arena cap is set for a long-running command before anything else runs: it holds only for
// arenas made after it, and loading the CLI alone starts threads that make six (src/shared/lean-allocator.ts).
// A server's V8 heap is kept small the same way, before it grows.
const { keepHeapSmall, useFewerArenasForLongRuns } = await import("../dist/shared/lean-allocator.js");
await useFewerArenasForLongRuns(process.argv.slice(2));
keepHeapSmall(process.argv.slice(2));
const { main } = await import("../dist/cli/main.bundle.js"); // dist/cli/ in one file (src/cli/bundle.mjs)
await main(process.argv);
