import { BUNDLED_EMBEDDER_ID } from "./bundled/bundled-embedder.js";
import { DTYPE_SUFFIX } from "./transformers/model-files.js";
import { DEFAULT_TRANSFORMERS_MODEL } from "./workers/local-models.js";

/**
 * The models mnemo picks by itself read English only: the bundled model's vocabulary is English
 * word pieces, and all-MiniLM-L6-v2 was trained on English pairs. Texts in other scripts come out
 * nearly alike to them, and close to nonsense (src/README.md, "Meaning only where the model reads").
 */
const LATIN_ONLY = new Set([BUNDLED_EMBEDDER_ID, `transformers:${DEFAULT_TRANSFORMERS_MODEL}`]);

/** The Unicode scripts an embedder's similarities mean something in, by its id; undefined: any, or not known. */
export function scriptsRead(embedderId: string): readonly string[] | undefined {
  const [kind, model, dtype] = embedderId.split(":");
  const weights = dtype !== undefined && dtype in DTYPE_SUFFIX ? `${kind}:${model}` : embedderId;
  return LATIN_ONLY.has(weights) ? ["Latin"] : undefined;
}
