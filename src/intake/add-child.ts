import type { EngineCore } from '../engine-core.js';
import { notePolicy } from '../retention/policy-notes.js';
import { completeRows } from './insert-jobs.js';
import type { JobRequest } from './job-request.js';

/** Where a child sits in its workflow's tree, and the parent attempt that may create it. */
export interface ChildPlacement {
  parentId: string;
  rootId: string;
  /** The parent's step that creates it: one child per (parent, step), however often replayed. */
  parentStep: string;
  /** The parent attempt's lock token: only the attempt that owns the parent adds its child. */
  token: string;
}

/**
 * Add a workflow's child through the intake, once per (parent, step). Its id, or null when
 * the step had created it already or the parent's attempt no longer owns the parent.
 */
export async function addChild(
  core: EngineCore,
  request: JobRequest,
  placement: ChildPlacement,
): Promise<string | null> {
  await completeRows(core, [request]);
  const { row } = request;
  if (request.policy !== undefined) notePolicy(core.once, request.policy, 'runChild.retention');
  row.parent_id = placement.parentId;
  row.root_id = placement.rootId;
  row.parent_step = placement.parentStep;
  return core.storage.workflow.insertChild(row, placement.token, core.insertDefaults);
}
