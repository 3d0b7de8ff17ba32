// The words for a task's other file, said by the detector (index.ts) and the converter (task.ts) alike.

/** Why a task's api_conversation_history.json is not read beside its ui_messages.json. */
export const MODEL_SIDE =
  "files of what Cline sent the model (api_conversation_history.json), not read: the task's ui_messages.json holds its chat";
