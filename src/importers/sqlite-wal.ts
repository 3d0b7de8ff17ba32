// A database in WAL mode (Cursor's, while it runs) keeps its latest changes in `<name>-wal` beside it
// until SQLite copies them into the file (a checkpoint). sql.js reads the file alone, blind to them,
// so the WAL's committed frames are applied to the file's bytes first, as SQLite does when it opens
// the database: https://www.sqlite.org/fileformat2.html#walformat (the header, the frames, their
// salts and cumulative checksums; frames after the last commit, or past a checksum that fails, are not
// the database's yet).

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

/** The database with the WAL's committed pages in it; the database as it is when the WAL holds none, or is no WAL of it. */
export function withWal(db: Buffer, wal: Buffer): Buffer {
  if (wal.length < WAL_HEADER_BYTES) return db;
  const magic = wal.readUInt32BE(0);
  if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) return db;
  const bigEndian = magic === MAGIC_BIG_ENDIAN;
  const pageSize = wal.readUInt32BE(8);
  if (pageSize !== pageSizeOf(db)) return db;
  let sum = checksum(wal, 0, 24, [0, 0], bigEndian);
  if (sum[0] !== wal.readUInt32BE(24) || sum[1] !== wal.readUInt32BE(28)) return db;
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  const committed = new Map<number, number>(); // page number → where its newest committed content starts in the WAL
  let pending = new Map<number, number>();
  let pages = 0; // the database's size in pages after the last commit
  for (let at = WAL_HEADER_BYTES; at + FRAME_HEADER_BYTES + pageSize <= wal.length; at += FRAME_HEADER_BYTES + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salts[0] || wal.readUInt32BE(at + 12) !== salts[1]) break; // a frame of an earlier WAL
    sum = checksum(wal, at + FRAME_HEADER_BYTES, pageSize, checksum(wal, at, 8, sum, bigEndian), bigEndian);
    if (sum[0] !== wal.readUInt32BE(at + 16) || sum[1] !== wal.readUInt32BE(at + 20)) break; // torn: written no further
    pending.set(wal.readUInt32BE(at), at + FRAME_HEADER_BYTES);
    const commit = wal.readUInt32BE(at + 4);
    if (commit === 0) continue;
    for (const [page, start] of pending) committed.set(page, start);
    pending = new Map();
    pages = commit;
  }
  if (pages === 0) return db;
  const size = pages * pageSize;
  const out = size <= db.length ? db.subarray(0, size) : Buffer.concat([db, Buffer.alloc(size - db.length)]);
  for (const [page, start] of committed) if (page <= pages) wal.copy(out, (page - 1) * pageSize, start, start + pageSize);
  out[18] = 1; // the file's write and read versions: a rollback journal, so that nothing looks for the WAL again
  out[19] = 1;
  return out;
}

/** The page size a database's header gives (1 stands for 65,536). */
function pageSizeOf(db: Buffer): number {
  if (db.length < 100) return 0;
  const size = db.readUInt16BE(16);
  return size === 1 ? 65536 : size;
}

/** SQLite's WAL checksum of `length` bytes (a multiple of 8) from `start`, carried on from `sum`. */
function checksum(bytes: Buffer, start: number, length: number, sum: [number, number], bigEndian: boolean): [number, number] {
  let [s0, s1] = sum;
  for (let i = start; i < start + length; i += 8) {
    s0 = (s0 + (bigEndian ? bytes.readUInt32BE(i) : bytes.readUInt32LE(i)) + s1) >>> 0;
    s1 = (s1 + (bigEndian ? bytes.readUInt32BE(i + 4) : bytes.readUInt32LE(i + 4)) + s0) >>> 0;
  }
  return [s0, s1];
}
