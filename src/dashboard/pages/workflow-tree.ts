import { TREE_LIMIT, type TreeNode } from '../../admin/job-extras.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { statusBadge } from '../layout.js';

/**
 * The whole workflow tree the job belongs to, from its root: every descendant indented under
 * its parent with its queue and status, the job itself highlighted. `tree` comes depth-first
 * from loadTree, at most TREE_LIMIT + 1 rows; a longer tree is cut and says so.
 */
export function workflowTree(ctx: DashboardContext, tree: TreeNode[], selfId: string): Html {
  if (tree.length <= 1) return html`<p class="muted">none: this job has no parent and no children</p>`;
  const shown = tree.slice(0, TREE_LIMIT);
  const childrenOf = new Map<string, TreeNode[]>();
  for (const node of shown) {
    const siblings = childrenOf.get(node.parent_id ?? '');
    if (siblings) siblings.push(node);
    else childrenOf.set(node.parent_id ?? '', [node]);
  }
  const root = shown[0];
  const item = (node: TreeNode): Html => {
    const self = node.id === selfId;
    const kids = childrenOf.get(node.id) ?? [];
    return html`<li${self ? html` class="current"` : ''} data-depth="${node.depth}"><span class="node"><a href="${href(ctx, `/jobs/${node.id}`)}"${self ? html` aria-current="page"` : ''}>${node.id}</a> <span class="mono small">${node.queue}</span> ${statusBadge(node.status)}${self ? html` <span class="small muted">this job</span>` : ''}</span>${
      kids.length > 0 ? html`<ul>${kids.map(item)}</ul>` : ''
    }</li>`;
  };
  const cut = tree.length > TREE_LIMIT;
  const selfShown = shown.some((n) => n.id === selfId);
  return html`<ul class="tree" id="workflow-tree">${item(root)}</ul>${
    cut
      ? html`<p class="small muted">Only the first ${TREE_LIMIT} jobs of this tree are shown${selfShown ? '' : ' (this job is beyond them)'}.</p>`
      : ''
  }`;
}
