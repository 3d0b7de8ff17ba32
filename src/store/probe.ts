import type * as lancedb from "@lancedb/lancedb";

/** The table, or undefined when it is missing or its folder has no committed version yet. */
export async function openCommitted(db: lancedb.Connection, name: string): Promise<lancedb.Table | undefined> {
  try {
    return await db.openTable(name);
  } catch (error) {
    // Only "no such table" and "a folder without a version": any other failure (a damaged table) is an error.
    if (error instanceof Error && /^Table '[^']*' was not found|could not be loaded[\s\S]*was not found/.test(error.message)) {
      return undefined;
    }
    throw error;
  }
}

/** Whether the table has a committed version, asked of the table itself rather than of a listing. */
export async function tableExists(db: lancedb.Connection, name: string): Promise<boolean> {
  const table = await openCommitted(db, name);
  table?.close();
  return table !== undefined;
}
