// The part of sql.js (which ships no types) that sqlite.ts uses.
declare module "sql.js" {
  type SqlValue = number | string | Uint8Array | null;
  interface Statement {
    step(): boolean;
    get(): SqlValue[];
    free(): boolean;
  }
  interface Database {
    exec(sql: string): { columns: string[]; values: SqlValue[][] }[];
    prepare(sql: string, params?: Record<string, SqlValue>): Statement;
    close(): void;
  }
  interface SqlJsStatic {
    Database: new (data?: Uint8Array) => Database;
  }
  export default function initSqlJs(config?: object): Promise<SqlJsStatic>;
}
