/** Poll `condition` until it returns a truthy value or `timeoutMs` passes (then fail with `what`). */
export async function waitFor<T>(
  what: string,
  condition: () => Promise<T> | T,
  { timeoutMs = 15_000, intervalMs = 20 } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await condition();
    if (last) return last as NonNullable<T>;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what} (last value: ${JSON.stringify(last)})`,
  );
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `promise`, or a failure naming `what` once `ms` pass without it settling: a wait on an event
 * rather than a poll, which a worker keeping the thread busy (PGlite runs in it) cannot starve.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
