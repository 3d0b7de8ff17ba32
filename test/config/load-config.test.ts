import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { AppError } from "../../src/shared/errors.js";
import { tempDir } from "../helpers.js";

function configFrom(settings: object) {
  const store = tempDir();
  fs.writeFileSync(path.join(store, "config.json"), JSON.stringify(settings));
  return () => loadConfig({ store }, {});
}

describe("config.json", () => {
  it("reads the embedder's workers and threads, and leaves threads to the pool by default", () => {
    expect(configFrom({ embedderWorkers: 2, embedderThreads: 1 })()).toMatchObject({ embedderWorkers: 2, embedderThreads: 1 });
    const defaults = configFrom({})();
    expect(defaults.embedderWorkers).toBe(1);
    expect(defaults.embedderThreads).toBeUndefined();
  });

  it("releases an unused model after 5 minutes by default; null keeps it, 0 is refused", () => {
    expect(configFrom({})().modelIdleSeconds).toBe(300);
    expect(configFrom({ modelIdleSeconds: null })().modelIdleSeconds).toBeNull();
    expect(configFrom({ modelIdleSeconds: 0 })).toThrow(/config\.json: modelIdleSeconds: /);
  });

  it("takes an object store's options from the default data dir's config.json, and refuses one that is not a string without quoting it", () => {
    const home = tempDir();
    const dataDir = path.join(home, "mnemo");
    fs.mkdirSync(dataDir);
    const write = (options: object) => fs.writeFileSync(path.join(dataDir, "config.json"), JSON.stringify({ storage: { options } }));
    write({ aws_endpoint: "http://127.0.0.1:9000", aws_secret_access_key: "s3cret-value" });
    const config = loadConfig({ store: "s3://bucket/db" }, { XDG_DATA_HOME: home });
    expect(config).toMatchObject({ storeUri: "s3://bucket/db", paths: { dataDir } });
    expect(config.storage.options).toEqual({ aws_endpoint: "http://127.0.0.1:9000", aws_secret_access_key: "s3cret-value" });
    expect(configFrom({}).call(undefined).storage.options).toEqual({});
    write({ aws_secret_access_key: 1234567890 });
    expect(() => loadConfig({ store: "s3://bucket/db" }, { XDG_DATA_HOME: home })).toThrow(
      /storage\.options\.aws_secret_access_key: (?!.*1234567890)/,
    );
  });

  it("refuses an object store's URI that names no bucket, saying how one looks", () => {
    for (const store of ["s3://", "s3:///db", "gs://"]) {
      expect(() => loadConfig({ store }, {})).toThrow(
        expect.objectContaining({ message: `--store: ${JSON.stringify(store)} names no bucket` }),
      );
    }
    expect(() => loadConfig({}, { MNEMO_STORE: "s3://" })).toThrow(
      expect.objectContaining({
        message: 'MNEMO_STORE: "s3://" names no bucket',
        suggestion: expect.stringContaining("s3://my-bucket/mnemo"),
      }),
    );
  });

  it("keeps models in the data dir, or in $MNEMO_MODELS for several stores to share; the default data dir is under $HOME", () => {
    const store = tempDir();
    expect(loadConfig({ store }, {}).paths.models).toBe(path.join(store, "models"));
    const shared = tempDir();
    expect(loadConfig({ store }, { MNEMO_MODELS: shared }).paths.models).toBe(shared);
    const home = tempDir();
    expect(loadConfig({}, { HOME: home }).paths).toMatchObject({
      dataDir: path.join(home, ".mnemo"),
      models: path.join(home, ".mnemo", "models"),
    });
  });

  it("refuses a bad setting, naming the file and the setting", () => {
    expect(configFrom({ embedderThreads: 0 })).toThrow(/config\.json: embedderThreads: /);
    expect(configFrom({ embedderWorker: 2 })).toThrow(/config\.json: .*embedderWorker/);
  });

  it("reads a file saved with a byte-order mark (Notepad's UTF-8, PowerShell's UTF-16), and names a folder or a looped link in its place", () => {
    const settings = Buffer.from(JSON.stringify({ chunkTokens: 300 }));
    const utf16 = Buffer.from(JSON.stringify({ chunkTokens: 300 }), "utf16le");
    for (const bytes of [
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), settings]),
      Buffer.concat([Buffer.from([0xff, 0xfe]), utf16]),
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(utf16).swap16()]),
    ]) {
      const store = tempDir();
      fs.writeFileSync(path.join(store, "config.json"), bytes);
      expect(loadConfig({ store }, {}).chunkTokens).toBe(300);
    }
    const looped = tempDir();
    fs.symlinkSync(path.join(looped, "config.json"), path.join(looped, "config.json"));
    expect(() => loadConfig({ store: looped }, {})).toThrow(
      expect.objectContaining({
        code: "invalid_input",
        message: expect.stringMatching(/^cannot read .*config\.json: too many symbolic links/),
      }),
    );
    const store = tempDir();
    fs.mkdirSync(path.join(store, "config.json"));
    expect(() => loadConfig({ store }, {})).toThrow(
      expect.objectContaining({ code: "invalid_input", message: expect.stringMatching(/config\.json is a folder, not a settings file$/) }),
    );
  });

  it("refuses a misspelt setting at any depth, naming it and those it may have meant, never ignoring it", () => {
    expect(configFrom({ embeder: "bundled" })).toThrow(
      /config\.json: embeder: is not a setting \(those here: embedder, embedderWorkers, .*allowDownload, storage\)$/,
    );
    // An API key under the wrong name left recall failing against OpenAI for no reason it named.
    expect(configFrom({ llm: { apikey: "sk-…" } })).toThrow(
      /config\.json: llm\.apikey: is not a setting \(those here: baseUrl, apiKey, model, timeoutMs, retries\)$/,
    );
    expect(configFrom({ server: { cors: ["https://example.org"] } })).toThrow(
      /config\.json: server\.cors: is not a setting \(those here: .*corsOrigins\)$/,
    );
    expect(configFrom({ llm: { model: "llama3" }, server: { port: 7412, corsOrigins: [] } })().llm.model).toBe("llama3");
  });

  it("refuses a LANCE_IO_THREADS that LanceDB would panic on, which read as every table damaged, before the store is opened", () => {
    const store = tempDir();
    for (const value of ["abc", "0", "-1", "1.5", ""]) {
      expect(() => loadConfig({ store }, { LANCE_IO_THREADS: value })).toThrow(
        `LANCE_IO_THREADS must be a whole number of threads, 1 or more (got "${value}")`,
      );
    }
    expect(loadConfig({ store }, { LANCE_IO_THREADS: "3" }).env["LANCE_IO_THREADS"]).toBe("3");
  });

  it("refuses a bad setting from the environment as an AppError naming the setting and the variable", () => {
    const store = tempDir();
    let error: unknown;
    try {
      loadConfig({ store }, { MNEMO_SYNTHESIZER: "openai", MNEMO_LLM_BASE_URL: "not a url" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toBe("Setting llm.baseUrl: Invalid URL");
    expect((error as AppError).suggestion).toMatch(/MNEMO_LLM_BASE_URL or OPENAI_BASE_URL/);
  });

  it("leaves the LLM's address unchecked while nothing that needs it (the openai synthesizer, the llm reranker) is chosen", () => {
    // OPENAI_BASE_URL may be set for another tool that reads it some other way.
    expect(loadConfig({ store: tempDir() }, { OPENAI_BASE_URL: "not a url" }).synthesizer).toBe("extractive");
    expect(() => loadConfig({ store: tempDir() }, { OPENAI_BASE_URL: "not a url", MNEMO_RERANKER: "llm" })).toThrow(
      "Setting llm.baseUrl: Invalid URL",
    );
    expect(loadConfig({ store: tempDir() }, { MNEMO_RERANKER: "llm" }).reranker).toBe("llm");
  });
});
