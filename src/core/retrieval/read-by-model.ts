import { readsOnlyEnglish } from "../../providers/embedder-languages.js";
import { inAnotherLanguage } from "../../text/other-language.js";
import { mostlyInScripts } from "../../text/scripts.js";

const mostlyLatin = mostlyInScripts(["Latin"]);
/** Mostly in Latin letters, and not French, German, Spanish, Portuguese, Italian or Dutch by its common words. */
export const inEnglish = (text: string): boolean => mostlyLatin(text) && !inAnotherLanguage(text);
const anyText = () => true;

/**
 * Whether the embedder's similarity to a text says anything: a model that reads English only rates
 * texts in other scripts and languages alike. Where it cannot read the query's text or the
 * candidate's, relevance goes by the words alone, as for a memory the vector leg did not find.
 */
export function readByModel(embedderId: string): (text: string) => boolean {
  return readsOnlyEnglish(embedderId) ? inEnglish : anyText;
}
