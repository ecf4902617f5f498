import type { EngineCore } from '../engine-core.js';
import type { AttemptEntry, TreeNode } from '../storage/storage.js';

export type { AttemptEntry, TreeNode } from '../storage/storage.js';

/** Nodes of a tree shown on a job page at most; a larger tree says so. */
export const TREE_LIMIT = 500;

/** The failed attempts recorded on a job (oldest first) and its descendants. */
export async function loadJobExtras(
  core: EngineCore,
  id: string,
): Promise<{ attempts: AttemptEntry[]; tree: TreeNode[] }> {
  const [attempts, tree] = await Promise.all([core.storage.reads.attemptLog(id), loadTree(core, id)]);
  return { attempts, tree };
}

/**
 * A job and its descendants, depth-first, at most TREE_LIMIT + 1 rows: one more than is
 * shown, so a caller can tell a tree that was cut.
 */
export async function loadTree(core: EngineCore, id: string): Promise<TreeNode[]> {
  return core.storage.reads.jobTreeOf(id, TREE_LIMIT + 1);
}
