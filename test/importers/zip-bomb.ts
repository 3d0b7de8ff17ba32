// A zip of one entry of zeros, deflated as it is made (the zeros never held whole): a "zip bomb" of
// `megabytes` MB that is a thousandth of that on disk.
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { createDeflateRaw, crc32 } from "node:zlib";

export async function zipOfZeros(path: string, entries: readonly { name: string; megabytes?: number; text?: string }[]): Promise<void> {
  const out = createWriteStream(path);
  const central: Buffer[] = [];
  let offset = 0;
  const write = async (bytes: Buffer) => {
    if (!out.write(bytes)) await once(out, "drain");
    offset += bytes.length;
  };
  for (const { name, megabytes = 0, text } of entries) {
    const { data, crc, size } = text === undefined ? await deflatedZeros(megabytes) : await deflated(Buffer.from(text));
    const nameBytes = Buffer.from(name);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(8, 8); // deflate
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(data.length, 18);
    header.writeUInt32LE(size, 22);
    header.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(size, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, nameBytes);
    await write(header);
    await write(nameBytes);
    await write(data);
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  await write(directory);
  await write(end);
  out.end();
  await once(out, "finish");
}

async function deflated(bytes: Buffer) {
  const { data } = await deflate([bytes]);
  return { data, crc: crc32(bytes), size: bytes.length };
}

async function deflatedZeros(megabytes: number) {
  const chunk = Buffer.alloc(1024 * 1024);
  let crc = 0;
  for (let i = 0; i < megabytes; i++) crc = crc32(chunk, crc);
  const { data } = await deflate(Array.from({ length: megabytes }, () => chunk));
  return { data, crc, size: megabytes * chunk.length };
}

async function deflate(chunks: Buffer[]): Promise<{ data: Buffer }> {
  const deflater = createDeflateRaw({ level: 1 });
  const out: Buffer[] = [];
  deflater.on("data", (piece: Buffer) => out.push(piece));
  for (const chunk of chunks) if (!deflater.write(chunk)) await once(deflater, "drain");
  deflater.end();
  await once(deflater, "end");
  return { data: Buffer.concat(out) };
}
