import { BUNDLED_EMBEDDER_ID } from "./bundled/bundled-embedder.js";
import { DTYPE_SUFFIX } from "./transformers/model-files.js";
import { DEFAULT_TRANSFORMERS_MODEL } from "./workers/local-models.js";

/**
 * The models mnemo picks by itself read English only: the bundled model's vocabulary is English
 * word pieces, and all-MiniLM-L6-v2 was trained on English pairs. Texts in other languages come out
 * nearly alike to them, and close to nonsense (src/README.md, "Meaning only where the model reads").
 */
const ENGLISH_ONLY = new Set([BUNDLED_EMBEDDER_ID, `transformers:${DEFAULT_TRANSFORMERS_MODEL}`]);

/** Whether an embedder, by its id, is known to read English only; one not known is taken to read every language. */
export function readsOnlyEnglish(embedderId: string): boolean {
  const [kind, model, dtype] = embedderId.split(":");
  return ENGLISH_ONLY.has(dtype !== undefined && dtype in DTYPE_SUFFIX ? `${kind}:${model}` : embedderId);
}
