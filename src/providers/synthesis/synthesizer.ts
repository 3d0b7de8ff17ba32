/** Turns ranked passages into a short narrative that cites passage n with `cite(n)` (core/citations). */
export interface Synthesizer {
  /** Names what synthesizes, e.g. `extractive` or `openai:gpt-4o-mini`; recall reports it as `model`. */
  readonly id: string;
  synthesize(request: SynthesisRequest): Promise<Synthesis>;
}

import type { ChatPlatform } from "../../schemas/chat-platforms.js";

export type { ChatPlatform };

export interface Passage {
  /**
   * The citation number: the synthesis cites this passage as `cite(n)`. Numbers run in reading
   * order (the most relevant conversation first, time order within one), not in `passages`' order.
   */
  n: number;
  /** The conversation it is from: passages are grouped by it (two conversations may share a title). */
  conversationId: string;
  conversationTitle: string;
  /** ISO 8601, when the message has a time. */
  date: string | null;
  sender: "human" | "assistant";
  /** The message's place in its conversation: breaks ties in `date` (a prompt and its answer often share one). */
  order?: number;
  text: string;
  /** Relevance in [0, 1] (core/retrieval/passage-relevance.ts). */
  score: number;
}

export interface SynthesisRequest {
  query: string;
  /** Most relevant first. */
  passages: Passage[];
  /** Most tokens the content may have (the caller enforces it again). */
  maxTokens: number;
  /** Formatting hint for the chat assistant that will read the content. */
  platform?: ChatPlatform | undefined;
  /** What the user is talking about right now, to disambiguate. */
  conversationContext?: string | undefined;
}

export interface Synthesis {
  /** The narrative, citing passages with `cite(n)`: the answer shows them as [1]…[k]. */
  content: string;
  model: string;
}
