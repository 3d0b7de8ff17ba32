// Tells a GPT4All chat file by its first bytes: chatlistmodel.cpp writes CHAT_FORMAT_MAGIC as a
// big-endian quint32 before anything else. Kept apart so that the reader is loaded only for such a file.

/** CHAT_FORMAT_MAGIC (gpt4all-chat/src/chatlistmodel.cpp). */
export const CHAT_FORMAT_MAGIC = 0xf5d553cc;

export function startsAsGpt4allChat(head: Buffer): boolean {
  return head.length >= 8 && head.readUInt32BE(0) === CHAT_FORMAT_MAGIC;
}
