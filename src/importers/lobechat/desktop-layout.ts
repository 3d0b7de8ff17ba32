// Where the LobeHub desktop app's database folder is known: a Postgres data folder's PG_VERSION (desktop.ts reads it).

/** The version file of a Postgres data folder; its first group is the folder's root ("" or a folder it sits in, "/"-ended). */
export const POSTGRES_DATA_FILE = /^((?:.*\/)?)PG_VERSION$/;
