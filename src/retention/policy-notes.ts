import { messages } from '../log/messages.js';
import type { OnceLogger } from '../log/once.js';
import { freezeRetention, policyGaps } from '../model/retention-policy.js';

/**
 * Say once per distinct policy, per engine, what it keeps forever: a warning for a policy
 * that leaves finished statuses out (they are kept forever, usually by mistake), an info
 * line for one that keeps everything on purpose. `where` names the first place it was seen
 * (`engine`, a queue, a job field).
 */
export function notePolicy(once: OnceLogger, policy: unknown, where: string): void {
  if (typeof policy === 'object' && policy !== null && !once.firstSight(policy)) return;
  const { omitted, keepsAll } = policyGaps(policy);
  const windows = freezeRetention(policy);
  const key = `${JSON.stringify(windows)}|${omitted.join(',')}`;
  if (omitted.length > 0) {
    once.warn(key, messages.retentionPolicyGaps, {
      where,
      keptForever: omitted.join(', '),
      windows,
      hint: messages.retentionPolicyGapsHint,
    });
  } else if (keepsAll) {
    once.info(key, messages.retentionKeepsAll, { where });
  }
}
