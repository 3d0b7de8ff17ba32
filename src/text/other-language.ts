/**
 * Common words of French, German, Spanish, Portuguese, Italian and Dutch that are no English word
 * (nor a name or an abbreviation English text holds: "la", "los", "mit", "est", "con" are left out).
 */
const FOREIGN_WORDS = new Set(
  [
    "une des du mes tes sa ses je tu il elle nous vous ils elles pas ne que qui avec dans sur au aux ce cette c'est j'ai suis sont très mais ou où quoi quel quelle aussi être été fait chez",
    "ich der das und ist nicht ein eine einen einem zu auf für von dem wie wir sie es mein meine noch auch nur wenn aber oder sehr heute gibt jetzt schon wo",
    "los mi mis su sus un una que por para como pero muy está estoy fue cuando dónde qué cómo también ellos nosotros tengo mañana en",
    "os uma na dos das não meu minha você eu ele ela mas muito está foi tem isso como ao",
    "il gli di della che sono mio io lui noi voi anche molto questo questa è",
    "het een en ik jij wij zij niet voor naar maar ook zijn heb heeft dat wat waar mijn",
  ]
    .join(" ")
    .split(" "),
);

/** English function words that no language above writes alike ("in", "a", "was", "so" are shared, so left out). */
const ENGLISH_WORDS = new Set(
  "the and is are were you he she it we they my your his her our their to of at with from by not does did have has had be been this that what where when how who which can would should there here but or if about him them us".split(
    " ",
  ),
);

/**
 * Whether a text written in Latin letters is in another language than English, by its common words:
 * more of another's than of English's, and at least one. Not a language detector: a text of names
 * and keywords says nothing, and is taken for English. Measured on LoCoMo's 7,868 turns and
 * questions and the paraphrased memories: none taken for another language (src/README.md).
 */
export function inAnotherLanguage(text: string): boolean {
  let foreign = 0;
  let english = 0;
  for (const word of text.toLowerCase().match(/\p{L}[\p{L}'’]+/gu) ?? []) {
    if (FOREIGN_WORDS.has(word)) foreign++;
    else if (ENGLISH_WORDS.has(word)) english++;
  }
  return foreign > english;
}
