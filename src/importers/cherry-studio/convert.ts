// One converter for Cherry Studio's two stores: 1.x's topic rows (a backup's data.json, or its
// IndexedDB read into that shape: backup.ts) and 2.x's database rows (v2.ts). A file holds one or the other.
import { groupedPerFile, type Importer } from "../importer.js";
import type { RecordContext } from "../types.js";
import { fileConversations, topicRow, type TopicRow } from "./backup.js";
import { isCherryRow } from "./database.js";
import { databaseConversations, databaseItem, type DatabaseItem } from "./v2.js";

type Item = { database: DatabaseItem } | { backup: TopicRow };

export const cherryStudioConversations: Importer["convert"] = groupedPerFile(item, group);

function item(record: unknown, context: RecordContext): Item | undefined {
  if (isCherryRow(record)) {
    const database = databaseItem(record, context);
    return database === undefined ? undefined : { database };
  }
  const backup = topicRow(record, context);
  return backup === undefined ? undefined : { backup };
}

async function group(items: Item[]) {
  const database = items.flatMap((item) => ("database" in item ? [item.database] : []));
  const backup = items.flatMap((item) => ("backup" in item ? [item.backup] : []));
  return [...databaseConversations(database), ...(await fileConversations(backup))];
}
