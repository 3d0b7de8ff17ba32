import { scriptsRead } from "../../providers/embedder-scripts.js";
import { mostlyInScripts } from "../../text/scripts.js";

const readers = new Map<string, (text: string) => boolean>();
const anyText = () => true;

/**
 * Whether the embedder's similarity to a text says anything: the text is written mostly in a script
 * its model reads. Where it does not (the query's text or the candidate's), relevance goes by the
 * words alone, as for a memory the vector leg did not find.
 */
export function readByModel(embedderId: string): (text: string) => boolean {
  let reads = readers.get(embedderId);
  if (!reads) {
    const scripts = scriptsRead(embedderId);
    reads = scripts ? mostlyInScripts(scripts) : anyText;
    readers.set(embedderId, reads);
  }
  return reads;
}
