/**
 * The SentencePiece tokenizer of Universal Sentence Encoder lite, as @energetic-ai/embeddings
 * (and TensorFlow.js's universal-sentence-encoder) implement it: the best-scoring segmentation
 * of the text into vocabulary pieces (Viterbi), an unknown symbol where no piece starts, runs of
 * unknowns merged. Same ids, tie-breaks included (tested against the package's own tokenizer);
 * it walks the vocabulary trie in place, where the package copies the rest of the text at every
 * position (quadratic: ~2 ms and megabytes of garbage for a 700-character chunk) and needs
 * TensorFlow.js loaded to be imported at all.
 */

interface TrieNode {
  children: Map<string, TrieNode>;
  /** The vocabulary index of the piece that ends here, or -1. */
  token: number;
  score: number;
}

interface Piece {
  start: number;
  score: number;
  token: number;
}

/** The vocabulary's first entries are control symbols, never matched in text. */
const RESERVED = 6;
const UNKNOWN = 0;
const WORD_START = "\u2581";

export class UseTokenizer {
  private readonly root = node();

  /** `vocabulary`: [piece, log-probability] by index, as the model package ships it (vocab.json). */
  constructor(private readonly vocabulary: [string, number][]) {
    for (let index = RESERVED; index < vocabulary.length; index++) {
      const [piece, score] = vocabulary[index]!;
      let at = this.root;
      for (const symbol of piece) {
        let next = at.children.get(symbol);
        if (!next) at.children.set(symbol, (next = node()));
        at = next;
      }
      at.token = index;
      at.score = score;
    }
  }

  encode(text: string): number[] {
    const normalized = text.normalize("NFKC");
    const symbols = normalized.length > 0 ? [...(WORD_START + normalized.replaceAll(" ", WORD_START))] : [];
    const endingAt = this.pieces(symbols);
    const best = new Float64Array(symbols.length + 1);
    const tokens = new Int32Array(symbols.length + 1);
    for (let end = 1; end <= symbols.length; end++) {
      for (const { start, score, token } of endingAt[end]!) {
        const total = score + best[start]!;
        // As upstream: 0 means "not reached yet", and a later piece wins a tie.
        if (best[end] === 0 || total >= best[end]!) {
          best[end] = total;
          tokens[end] = token;
        }
      }
    }
    const reversed: number[] = [];
    for (let at = symbols.length; at > 0; at -= this.vocabulary[tokens[at]!]![0].length) reversed.push(tokens[at]!);
    return mergeUnknowns(reversed).reverse();
  }

  /** Every vocabulary piece found in the text, listed at the position it ends, by start. */
  private pieces(symbols: string[]): Piece[][] {
    const endingAt: Piece[][] = Array.from({ length: symbols.length + 1 }, () => []);
    for (let start = 0; start < symbols.length; start++) {
      let found = false;
      let at = this.root.children.get(symbols[start]!);
      for (let end = start + 1; at; end++) {
        if (at.token >= 0) {
          endingAt[end]!.push({ start, score: at.score, token: at.token });
          found = true;
        }
        at = end < symbols.length ? at.children.get(symbols[end]!) : undefined;
      }
      if (!found) endingAt[start + 1]!.push({ start, score: 0, token: UNKNOWN });
    }
    return endingAt;
  }
}

function node(): TrieNode {
  return { children: new Map(), token: -1, score: 0 };
}

/** A run of unknown symbols is one unknown token (ids in reverse order, as upstream merges them). */
function mergeUnknowns(ids: number[]): number[] {
  return ids.filter((id, i) => !(id === UNKNOWN && ids[i - 1] === UNKNOWN));
}
