// Gemini Apps (formerly Bard) activity from Google Takeout's My Activity, in JSON or as its HTML page
// (Takeout's default, read into the same records: activity-page/), in any language.
import { grouped, loaded, type Importer, type Match, type Sample } from "../importer.js";
import { namesGeminiProduct } from "./names.js";

export const gemini: Importer = {
  id: "gemini",
  name: "Gemini",
  chatApp: true,
  accepts: "Google Takeout's zip, its folder, or the My Activity file of Gemini Apps (HTML or JSON, in any language)",
  howToGet: "Google Takeout: select My Activity and narrow it to Gemini Apps (HTML, the default, or JSON).",
  extensions: [".json", ".html"],
  detect,
  convert: loaded(async () => {
    const { readActivity, geminiConversations } = await import("./activity.js");
    return grouped(readActivity, geminiConversations);
  }),
};

/** Every Google product's activity has this shape: a file without any Gemini record is another product's. */
function detect(sample: Sample): Match | undefined {
  if (!sample.keys.has("header") || !sample.keys.has("time")) return undefined;
  const products = [...sample.strings("header"), ...sample.strings("products")];
  return products.some(namesGeminiProduct) ? {} : { aside: "files of another Google product's activity, not read" };
}
