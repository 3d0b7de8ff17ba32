import { BUNDLED_EMBEDDER_ID } from "../../providers/bundled/bundled-embedder.js";
import { readsOnlyEnglish } from "../../providers/embedder-languages.js";
import type { UploadConversation } from "../../schemas/chat-history.js";
import { inEnglish } from "../retrieval/read-by-model.js";
import type { MnemoService } from "../service-types.js";

/** The model the hint names: the multilingual one README.md suggests. */
const MULTILINGUAL = "transformers:Xenova/paraphrase-multilingual-MiniLM-L12-v2";
/** How much of a conversation is read to tell its language. */
const SAMPLE_CHARS = 2_000;
/** The share of an import's conversations in other languages from which the hint is given, and the fewest: one or two are an aside. */
const HINT_SHARE = 0.2;
const HINT_FEWEST = 3;

/** How many of an import's conversations are mostly in a language other than English. */
export interface LanguageCount {
  read: number;
  otherLanguage: number;
}

export const noLanguages = (): LanguageCount => ({ read: 0, otherLanguage: 0 });

/** Counts a conversation, by its title and the start of its messages. */
export function countLanguage(count: LanguageCount, upload: UploadConversation): void {
  let sample = upload.conversation.title;
  for (const message of upload.conversation.messages) {
    if (sample.length >= SAMPLE_CHARS) break;
    sample += `\n${message.content.slice(0, SAMPLE_CHARS)}`;
  }
  count.read++;
  if (!inEnglish(sample)) count.otherLanguage++;
}

/**
 * When a fair share of what was imported is in other languages and the store's embedder reads
 * English only, what that means and the fix: such conversations are found by their words alone
 * (core/retrieval/read-by-model.ts), which a user would otherwise take for search that does not
 * work. The embedder is asked of the service only then; where there is no store yet (a dry run), it is
 * the one a new store would take (`newStore`: the config's spec, `auto` when mnemo picks it).
 */
export async function languageHint(
  service: MnemoService | undefined,
  count: LanguageCount,
  newStore = "auto",
): Promise<string | undefined> {
  if (count.otherLanguage < HINT_FEWEST || count.otherLanguage < HINT_SHARE * count.read) return undefined;
  // The models mnemo picks by itself (auto) all read English only (embedder-languages.ts).
  const embedder = service ? (await service.info()).embedder : { id: newStore === "auto" ? BUNDLED_EMBEDDER_ID : newStore, spec: newStore };
  if (!readsOnlyEnglish(embedder.id)) return undefined;
  const number = (n: number) => n.toLocaleString("en-US");
  const which =
    count.otherLanguage === count.read
      ? "These conversations are"
      : `${number(count.otherLanguage)} of these ${number(count.read)} conversations are`;
  return (
    `${which} mostly in languages other than English, which the embedder (${embedder.spec}) does not read: ` +
    `they are found by their words alone, in the forms written. For search by meaning in their languages, re-embed the store with ` +
    `a multilingual model (downloaded once): mnemo reindex --embedder ${MULTILINGUAL}`
  );
}
