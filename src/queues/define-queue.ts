import type { EngineCore } from '../engine-core.js';
import { QueueNotFoundError } from '../errors.js';
import { checkString } from '../options/check.js';
import { notePolicy } from '../retention/policy-notes.js';
import { type QueueOptions, type ResolvedQueue, resolveQueueOptions } from './queue-options.js';

/** Define a queue in this process; its options are stored in the background (see QueueRegistry). */
export function defineQueue<Data, Output>(
  core: EngineCore,
  input: QueueOptions<Data, Output>,
): ResolvedQueue {
  const { queue, policy } = resolveQueueOptions(input);
  if (policy !== undefined) notePolicy(core.once, policy, `queue ${queue.name}`);
  core.registry.define(queue);
  return queue;
}

/** Pause or resume a stored queue; QueueNotFoundError when no queue of that name is stored. */
export async function setQueuePaused(core: EngineCore, name: string, paused: boolean): Promise<void> {
  checkString(name, 'name');
  if (!(await core.storage.queues.setQueuePaused(name, paused))) throw new QueueNotFoundError(name);
}
