// Tells a GPT4All chat file by its first bytes: chatlistmodel.cpp writes CHAT_FORMAT_MAGIC as a
// big-endian quint32 before anything else. Kept apart so that the reader is loaded only for such a file.

/** CHAT_FORMAT_MAGIC (gpt4all-chat/src/chatlistmodel.cpp). */
export const CHAT_FORMAT_MAGIC = 0xf5d553cc;

export function startsAsGpt4allChat(head: Buffer): boolean {
  return (head.length >= 8 && head.readUInt32BE(0) === CHAT_FORMAT_MAGIC) || startsAsVersion0Chat(head);
}

/** 2023-01-01 and 2024-01-01 in seconds: GPT4All 2.4.0 and 2.4.1 wrote the files without a header (May 2023). */
const VERSION_0_FROM = 1672531200;
const VERSION_0_UNTIL = 1704067200;
/** A UUID without braces (Network::generateUniqueId), 36 characters, as a QString's UTF-16BE bytes. */
const ID_BYTES = 72;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A chat of before the header (version 0: 2.4.0 and 2.4.1, chat.cpp Chat::serialize at e397fda2): it
 * opens with its creation time (qint64 seconds, of 2023) and its id, a UUID as a QString, which
 * GPT4All still reads (ChatsRestoreThread's `oldFile`) when it meets one in its settings folder.
 */
export function startsAsVersion0Chat(head: Buffer): boolean {
  if (head.length < 12 + ID_BYTES || head.readUInt32BE(0) !== 0) return false;
  const created = head.readUInt32BE(4);
  if (created < VERSION_0_FROM || created >= VERSION_0_UNTIL || head.readUInt32BE(8) !== ID_BYTES) return false;
  return UUID.test(
    Buffer.from(head.subarray(12, 12 + ID_BYTES))
      .swap16()
      .toString("utf16le"),
  );
}
