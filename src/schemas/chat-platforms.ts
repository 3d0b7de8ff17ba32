/**
 * The chat products recall can format its summary for (its `platform` hint), with the names a
 * person reads: the one list the schema, the synthesizers, the CLI and the web app take them from.
 * Without zod, so the CLI can name them in its help without loading it.
 */
export const CHAT_PLATFORMS = { chatgpt: "ChatGPT", claude: "Claude", typingmind: "TypingMind" } as const;
export type ChatPlatform = keyof typeof CHAT_PLATFORMS;
export const CHAT_PLATFORM_IDS = Object.keys(CHAT_PLATFORMS) as [ChatPlatform, ...ChatPlatform[]];
