// Conversations an app keeps as a tree (a regenerated answer or an edited prompt is a sibling of the
// one it replaced): the one branch the user last saw, from its root down to its leaf. Each format
// says which leaf that is (the one the app names, the newest, or the one the app opens on).

/** A message of a tree: its id and its parent's (undefined for a root). */
export interface Linked {
  id: string;
  parent: string | undefined;
}

/**
 * The messages from the root down to `leaf`, by their parents. A parent that is not among the
 * messages ends the walk (that message is a root), as does a cycle in a damaged export.
 */
export function branchTo<T extends Linked>(nodes: readonly T[], leaf: T): T[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const branch: T[] = [];
  const seen = new Set<T>();
  for (let at: T | undefined = leaf; at !== undefined && !seen.has(at); at = at.parent === undefined ? undefined : byId.get(at.parent)) {
    seen.add(at);
    branch.push(at);
  }
  return branch.reverse();
}

/** Whether any message names another of them as its parent (else the messages are a list, not a tree). */
export function isTree(nodes: readonly Linked[]): boolean {
  const ids = new Set(nodes.map((node) => node.id));
  return nodes.some((node) => node.parent !== undefined && node.parent !== node.id && ids.has(node.parent));
}

/** The messages no other message answers, in the order given. */
export function leavesOf<T extends Linked>(nodes: readonly T[]): T[] {
  const parents = new Set(nodes.map((node) => node.parent));
  return nodes.filter((node) => !parents.has(node.id));
}

/**
 * The branch that ends at the leaf `newer` ranks last (the later in the order given on a tie): the
 * newest answer is the one the user was reading. Messages that are not a tree are kept as they are.
 */
export function newestBranch<T extends Linked>(nodes: readonly T[], newer: (a: T, b: T) => number): T[] {
  if (!isTree(nodes)) return [...nodes];
  const leaf = leavesOf(nodes).reduce<T | undefined>(
    (best, node) => (best === undefined || newer(node, best) >= 0 ? node : best),
    undefined,
  );
  return leaf === undefined ? [...nodes] : branchTo(nodes, leaf);
}

/**
 * The branch an app opens on when it shows the last of each message's answers: from the last root,
 * the last child each time (children in the order given). Messages that are not a tree are kept as they are.
 */
export function lastChildBranch<T extends Linked>(nodes: readonly T[]): T[] {
  if (!isTree(nodes)) return [...nodes];
  const ids = new Set(nodes.map((node) => node.id));
  const children = new Map<string | undefined, T[]>();
  for (const node of nodes) {
    const parent = node.parent !== undefined && ids.has(node.parent) && node.parent !== node.id ? node.parent : undefined;
    const siblings = children.get(parent);
    if (siblings === undefined) children.set(parent, [node]);
    else siblings.push(node);
  }
  const branch: T[] = [];
  const seen = new Set<string>();
  for (let at = children.get(undefined)?.at(-1); at !== undefined && !seen.has(at.id); at = children.get(at.id)?.at(-1)) {
    seen.add(at.id);
    branch.push(at);
  }
  return branch;
}

/**
 * The messages without the failed answers nothing follows: an error the user moved past by asking
 * again is not where the conversation ends, so a branch is chosen among the answers.
 */
export function withoutFailedLeaves<T extends Linked>(nodes: readonly T[], failed: (node: T) => boolean): T[] {
  const parents = new Set(nodes.map((node) => node.parent));
  return nodes.filter((node) => parents.has(node.id) || !failed(node));
}

/** Compares ISO 8601 UTC times (they sort as strings); a missing one is older than any. */
export function compareTimes(a: string | undefined, b: string | undefined): number {
  const x = a ?? "";
  const y = b ?? "";
  return x < y ? -1 : x > y ? 1 : 0;
}
