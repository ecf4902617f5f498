import type { EngineCore } from '../engine-core.js';
import type { TreeNode } from '../storage/storage.js';

export type { AttemptEntry, TreeNode } from '../storage/storage.js';

/** Nodes of a tree shown on a job page at most; a larger tree says so. */
export const TREE_LIMIT = 500;

/**
 * A job and its descendants, depth-first, at most TREE_LIMIT + 1 rows: one more than is
 * shown, so a caller can tell a tree that was cut.
 */
export async function loadTree(core: EngineCore, id: string): Promise<TreeNode[]> {
  return core.storage.reads.jobTreeOf(id, TREE_LIMIT + 1);
}
