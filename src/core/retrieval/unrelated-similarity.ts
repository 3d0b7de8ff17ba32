// What cosine similarity an embedder gives texts that have nothing to do with each other, measured
// on the embedder itself: a question about nothing stored must not look relevant because the
// model's similarities run high. The bundled model rates unrelated questions and statements up to
// ~0.26 (9 in 10 pairs below it), MiniLM-class models far lower; a fixed number would suit one of them.
import type { Embedder } from "../../providers/embedder.js";

/** Questions and statements that share no topic with one another. */
const QUESTIONS = [
  "How many moons does Jupiter have?",
  "Who painted the ceiling of the Sistine Chapel?",
  "What is the boiling point of water at high altitude?",
  "When did the Roman empire fall?",
  "How do I reset my router?",
  "Which team won the cricket world cup?",
  "What is a good name for a goldfish?",
  "How long should I boil an egg?",
];
const STATEMENTS = [
  "The invoice is due at the end of the month.",
  "She plays the violin in a local orchestra.",
  "Our neighbours are building an extension.",
  "The museum is closed on Mondays.",
  "I started learning to knit over the holidays.",
  "The train leaves every twenty minutes.",
  "My brother works as an electrician.",
  "We repainted the kitchen a pale green.",
  "The password must be at least twelve characters.",
  "I forgot my umbrella at the office.",
];
/** The share of unrelated pairs that score below the level returned. */
const QUANTILE = 0.9;

const measured = new WeakMap<Embedder, Promise<number>>();

/** The similarity 9 in 10 unrelated question–statement pairs stay below, for this embedder (measured once). */
export function unrelatedSimilarity(embedder: Embedder): Promise<number> {
  let level = measured.get(embedder);
  if (level === undefined) {
    level = measure(embedder);
    measured.set(embedder, level);
    level.catch(() => measured.delete(embedder)); // a failed load is tried again by the next query
  }
  return level;
}

async function measure(embedder: Embedder): Promise<number> {
  const [questions, statements] = await Promise.all([
    Promise.all(QUESTIONS.map((question) => embedder.embedQuery(question))),
    embedder.embedDocuments(STATEMENTS),
  ]);
  const similarities = questions.flatMap((question) => statements.map((statement) => dot(question, statement))).sort((a, b) => a - b);
  return similarities[Math.floor(QUANTILE * (similarities.length - 1))]!;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
