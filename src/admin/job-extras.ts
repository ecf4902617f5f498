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
  const [[log], tree] = await Promise.all([core.storage.run(jobAttemptLog, { id }), loadTree(core, id)]);
  return { attempts: Array.isArray(log?.attempt_log) ? log.attempt_log : [], tree };
}

/**
 * A job and its descendants, depth-first, at most TREE_LIMIT + 1 rows: one more than is
 * shown, so a caller can tell a tree that was cut.
 */
export async function loadTree(core: EngineCore, id: string): Promise<TreeNode[]> {
  const tree = await core.storage.run(jobTree, {
    id,
    max_rows: TREE_LIMIT + 1,
  });
  return tree.map((n) => ({ ...n, depth: Number(n.depth) }));
}
