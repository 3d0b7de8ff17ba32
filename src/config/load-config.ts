import fs from "node:fs";
import { z } from "zod";
import { AppError } from "../shared/errors.js";
import "../schemas/messages.js";
import { CHUNK_TOKENS } from "./chunk-size.js";
import { locateStore, type LocationFlags, type StoreLocation } from "./location.js";

const EmbedderSpec = z.string().regex(/^(auto|bundled|transformers:.+)$/, "expected auto, bundled or transformers:<model id or folder>");
const RerankerSpec = z
  .string()
  .regex(/^(auto|none|llm|cross-encoder:.+)$/, "expected auto, none, llm or cross-encoder:<model id or folder>");

/** Everything a user can set in `<data dir>/config.json`, each setting checked on its own. Environment variables and flags override it. */
const Settings = z
  .object({
    embedder: EmbedderSpec.default("auto"),
    embedderWorkers: z.number().int().min(1).max(16).optional(),
    /** Threads each embedding worker runs its model on; by default the cores shared out among the workers. */
    embedderThreads: z.number().int().min(1).max(256).optional(),
    /**
     * How long a loaded model may go unused before it is released and loaded again on the next call
     * (src/README.md, Models); null keeps it loaded. 5 minutes, as Ollama's keep_alive: a conversation's calls keep it.
     */
    modelIdleSeconds: z.number().int().min(1).nullable().default(300),
    /**
     * Most tokens in one chunk of chat history, for a new store and for `mnemo reindex --rechunk`;
     * a store keeps the size it was chunked at (its meta records it) until it is re-chunked.
     */
    chunkTokens: z
      .number()
      .int()
      .min(CHUNK_TOKENS.min, CHUNK_TOKENS.range)
      .max(CHUNK_TOKENS.max, CHUNK_TOKENS.range)
      .default(CHUNK_TOKENS.default),
    reranker: RerankerSpec.default("auto"),
    synthesizer: z.enum(["extractive", "openai"]).default("extractive"),
    llm: z
      .object({
        // Checked below, and only when the openai synthesizer or the llm reranker will use it: an OPENAI_BASE_URL that
        // another tool reads some other way must not stop every mnemo command.
        baseUrl: z.string().default("https://api.openai.com/v1"),
        apiKey: z.string().optional(),
        model: z.string().default("gpt-4o-mini"),
        timeoutMs: z.number().int().positive().default(30_000),
        retries: z.number().int().min(0).max(10).default(2),
      })
      .strict()
      .prefault({}),
    server: z
      .object({
        host: z.string().default("127.0.0.1"),
        port: z.number().int().min(0).max(65535).default(7411),
        allowedHosts: z.array(z.string()).default([]),
        corsOrigins: z.array(z.string()).default([]),
      })
      .strict()
      .prefault({}),
    /** Conversations per user that are indexed; the rest are kept but quota-blocked. */
    conversationQuota: z.number().int().positive().nullable().default(null),
    allowDownload: z.boolean().default(true),
    /**
     * For a store on object storage (s3://, gs://, az://): LanceDB's storage options (endpoint,
     * region, keys…), over the AWS_*, GOOGLE_*, AZURE_* variables it reads itself. Secrets: never printed.
     */
    storage: z
      // Its own message: the usual one quotes the value given, and this one may be a secret.
      .object({ options: z.record(z.string(), z.string({ error: "must be a string" })).default({}) })
      .strict()
      .prefault({}),
  })
  .strict();

/** The settings as a whole: what one of them needs depends on another. */
export const FileConfig = Settings.superRefine((config, issues) => {
  if ((config.synthesizer === "openai" || config.reranker === "llm") && !URL.canParse(config.llm.baseUrl)) {
    issues.addIssue({ code: "custom", path: ["llm", "baseUrl"], message: "Invalid URL" });
  }
});
export type FileConfig = z.infer<typeof Settings>;

export interface Config extends Omit<FileConfig, "embedderWorkers">, StoreLocation {
  embedderWorkers: number;
  /** The environment the settings were read from: the processes mnemo starts (maintenance, doctor's reader) get it too. */
  env: NodeJS.ProcessEnv;
}

/** Values given on the command line; each one wins over the file and the environment. */
export interface ConfigFlags extends LocationFlags {
  embedder?: string | undefined;
}

export function loadConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  checkLanceIoThreads(env["LANCE_IO_THREADS"]);
  const location = locateStore(flags, env);
  const { paths } = location;
  const file = parseFileConfig(paths.config, readJsonFile(paths.config));
  const merged = parseMerged(paths.config, {
    ...file,
    ...(env["MNEMO_EMBEDDER"] ? { embedder: env["MNEMO_EMBEDDER"] } : {}),
    ...(env["MNEMO_RERANKER"] ? { reranker: env["MNEMO_RERANKER"] } : {}),
    ...(env["MNEMO_SYNTHESIZER"] ? { synthesizer: env["MNEMO_SYNTHESIZER"] } : {}),
    llm: {
      ...file.llm,
      ...((env["MNEMO_LLM_BASE_URL"] ?? env["OPENAI_BASE_URL"]) ? { baseUrl: env["MNEMO_LLM_BASE_URL"] ?? env["OPENAI_BASE_URL"] } : {}),
      ...((env["MNEMO_LLM_API_KEY"] ?? env["OPENAI_API_KEY"]) ? { apiKey: env["MNEMO_LLM_API_KEY"] ?? env["OPENAI_API_KEY"] } : {}),
      ...(env["MNEMO_LLM_MODEL"] ? { model: env["MNEMO_LLM_MODEL"] } : {}),
    },
    ...(flags.embedder ? { embedder: flags.embedder } : {}),
  });
  return {
    ...merged,
    // One model on every core: two copies embedded a 5 MB export 25% faster but peaked 150 MB higher.
    embedderWorkers: merged.embedderWorkers ?? 1,
    ...location,
    env,
  };
}

/**
 * LanceDB reads LANCE_IO_THREADS itself and panics on a value that is not a count of threads, which
 * reads as every table damaged: a bad one is named here, before the store is opened.
 */
function checkLanceIoThreads(value: string | undefined): void {
  if (value === undefined || /^[1-9]\d{0,3}$/.test(value)) return;
  throw new AppError("invalid_input", `LANCE_IO_THREADS must be a whole number of threads, 1 or more (got "${value}")`, {
    suggestion: "Unset it to use LanceDB's default (mnemo maintain takes 3), or set a number such as 3.",
  });
}

function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = decodeText(fs.readFileSync(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    // ENOTDIR: the data dir is a file, which opening the store then reports.
    if (["ENOENT", "ENOTDIR"].includes(code)) return {};
    if (code === "EISDIR") {
      throw new AppError("invalid_input", `${file} is a folder, not a settings file`, {
        suggestion: "Remove the folder (mnemo makes no folder there), or put the settings file in its place.",
      });
    }
    // ELOOP (a link to itself), EACCES…: Node's own words alone named neither the setting nor a fix.
    throw new AppError("invalid_input", `cannot read ${file}: ${(error as Error).message.replace(/^\w+: /, "")}`, {
      suggestion:
        "Check the data dir (--store or MNEMO_STORE) and its config.json: a link must lead to a file, and the file must be readable.",
    });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError("invalid_input", `${file} is not valid JSON: ${(error as Error).message}`, {
      suggestion: "Fix the file or delete it to go back to the defaults.",
    });
  }
}

/**
 * The file's text, UTF-8 with or without a byte-order mark, or UTF-16 with one: Notepad saves the
 * first, and Windows PowerShell's `>` writes the last. Either BOM read as JSON's "Unexpected token
 * '\uFEFF'", a character the message showed as nothing.
 */
function decodeText(bytes: Buffer): string {
  // A last odd byte is no character of UTF-16 (and swap16 throws on it): JSON.parse then says what is wrong.
  const utf16 = () => Buffer.from(bytes.subarray(2, bytes.length - (bytes.length % 2)));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return utf16().toString("utf16le");
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return utf16().swap16().toString("utf16le");
  const text = bytes.toString("utf8");
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

/** Where a setting can come from besides config.json, for the error that names it. */
const SOURCES: Record<string, string> = {
  embedder: "MNEMO_EMBEDDER or --embedder",
  reranker: "MNEMO_RERANKER",
  synthesizer: "MNEMO_SYNTHESIZER",
  "llm.baseUrl": "MNEMO_LLM_BASE_URL or OPENAI_BASE_URL",
  "llm.apiKey": "MNEMO_LLM_API_KEY or OPENAI_API_KEY",
  "llm.model": "MNEMO_LLM_MODEL",
};

/** The settings once the environment and flags are laid over the file: a bad one names itself and where it may come from. */
function parseMerged(file: string, value: unknown): FileConfig {
  return parseSettings(FileConfig, value, (field, message) => {
    const from = SOURCES[field] ? `${SOURCES[field]}, or ${file}` : file;
    return new AppError("invalid_input", `Setting ${field}: ${message}`, {
      suggestion: `Fix it where it is set (${from}), or remove it to use the default.`,
    });
  });
}

function parseFileConfig(file: string, value: unknown): Partial<FileConfig> {
  return parseSettings(
    Settings.partial(),
    value,
    (field, message) =>
      new AppError("invalid_input", `${file}: ${field}: ${message}`, { suggestion: "Fix the setting or remove it to use the default." }),
  );
}

/** Settings checked against their schema; the first problem, with its dotted field, becomes the error `problem` words. */
function parseSettings<S extends z.ZodType>(schema: S, value: unknown, problem: (field: string, message: string) => AppError): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === "unrecognized_keys") {
    const known = fieldsAt(schema, issue.path);
    throw problem(
      [...issue.path, issue.keys[0]].join("."),
      `is not a setting${known.length > 0 ? ` (those here: ${known.join(", ")})` : ""}`,
    );
  }
  throw problem(issue?.path.join(".") || "(root)", issue?.message ?? "invalid");
}

/** The names of the settings an object of the schema takes at `path` (the root's, or llm's…), for a misspelt one. */
function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: z.core.$ZodType | undefined = schema;
  for (let depth = 0; node !== undefined; depth++) {
    while (node !== undefined && "innerType" in node._zod.def) node = node._zod.def.innerType as z.core.$ZodType;
    if (node === undefined || node._zod.def.type !== "object") return [];
    const shape: Record<string, z.core.$ZodType> = (node._zod.def as z.core.$ZodObjectDef).shape;
    if (depth === path.length) return Object.keys(shape);
    node = shape[String(path[depth])];
  }
  return [];
}
