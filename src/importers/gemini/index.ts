// Gemini Apps (formerly Bard) activity from Google Takeout's My Activity, in JSON, in any language.
import { grouped, loaded, type Importer, type Match, type Sample } from "../importer.js";
import { namesGeminiProduct } from "./names.js";

export const gemini: Importer = {
  id: "gemini",
  name: "Gemini",
  chatApp: true,
  accepts: "Google Takeout's zip, its folder, or My Activity.json of Gemini Apps (exported as JSON, in any language)",
  howToGet: "Google Takeout: select My Activity, narrow it to Gemini Apps, and choose JSON in its format options (HTML is the default).",
  extensions: [".json"],
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
