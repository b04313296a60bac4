// Polling for tests that watch a cluster converge: one place that decides what "not yet" means, how long
// to keep asking, and what a timeout says, so a failed wait names what it waited for and why it last failed.
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** how long to keep probing (default 20 s) */
  timeoutMs?: number;
  /** the pause between probes (default 100 ms) */
  intervalMs?: number;
  /** more context for the timeout error (e.g. the object's last status, a process's log); read only on timeout */
  detail?: () => unknown;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 20_000;

/**
 * Calls `probe` until it returns something other than `undefined` or `false`, and returns that. A probe that
 * throws counts as "not yet" (the object may not exist yet); if the wait times out, the error names `what`,
 * the time waited, the error of the last probe if it threw, and `detail`.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  opts: WaitOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let lastError: unknown;
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last probe failed: ${errorText(lastError)})` : ''}${await detailText(opts.detail)}`,
      );
    await sleep(opts.intervalMs ?? 100);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function detailText(detail: WaitOptions['detail']): Promise<string> {
  if (!detail) return '';
  try {
    const value = await detail();
    return `\n${typeof value === 'string' ? value : JSON.stringify(value, null, 1)}`;
  } catch (err) {
    return `\n(the detail could not be read: ${errorText(err)})`;
  }
}
