import type { EngineCore } from '../engine-core.js';
import { type AttemptEntry, jobAttemptLog, jobTree, type TreeNode } from '../storage/sql/admin.js';

export type { AttemptEntry, TreeNode } from '../storage/sql/admin.js';

/** Nodes of a tree shown on a job page at most; a larger tree says so. */
export const TREE_LIMIT = 500;

/** The failed attempts recorded on a job (oldest first) and its descendants. */
export async function loadJobExtras(
  core: EngineCore,
  id: string,
): Promise<{ attempts: AttemptEntry[]; tree: TreeNode[] }> {
  const storage = core.storage;
  const [[log], tree] = await Promise.all([
    storage.run(jobAttemptLog, { id }),
    storage.run(jobTree, { id, max_rows: TREE_LIMIT + 1 }),
  ]);
  return {
    attempts: Array.isArray(log?.attempt_log) ? log.attempt_log : [],
    tree: tree.map((n) => ({ ...n, depth: Number(n.depth) })),
  };
}
