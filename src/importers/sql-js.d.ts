// The part of sql.js (which ships no types) that sqlite.ts, the Cursor and OpenCode fixtures' scripts and tests use.
declare module "sql.js" {
  type SqlValue = number | string | Uint8Array | null;
  interface Statement {
    run(params?: SqlValue[]): void;
    step(): boolean;
    get(): SqlValue[];
    getAsObject(): Record<string, SqlValue>;
    free(): boolean;
  }
  interface Database {
    exec(sql: string, params?: SqlValue[]): { columns: string[]; values: SqlValue[][] }[];
    run(sql: string, params?: SqlValue[]): Database;
    prepare(sql: string, params?: Record<string, SqlValue>): Statement;
    export(): Uint8Array;
    close(): void;
  }
  interface SqlJsStatic {
    Database: new (data?: Uint8Array) => Database;
  }
  export default function initSqlJs(config?: object): Promise<SqlJsStatic>;
}
