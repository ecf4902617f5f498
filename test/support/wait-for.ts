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
