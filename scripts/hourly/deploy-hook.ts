/**
 * Deploy production through a Vercel deploy hook: one POST, and Vercel builds the head of the
 * branch the hook was made for.
 *
 * Why a hook and not `vercel deploy --prebuilt` from the runner: Vercel's Git integration refuses
 * to deploy commits whose author is not a member of the team (the collector commits as
 * github-actions[bot]), while a deploy hook builds the branch head whoever wrote it; the CLI would
 * need a Vercel token, which carries the rights of a whole account or team, in CI, whereas the
 * hook URL is one secret that can do exactly one thing (deploy one project from one branch) and
 * is revoked by deleting the hook. The build also stays on Vercel, same as for every human push.
 */
import pRetry, { AbortError } from 'p-retry';

export interface DeployHookOptions {
  /** Time allowed for each attempt. */
  timeoutMs: number;
  /** Retries after a failed attempt (5xx, 408, 429, network, timeout); other 4xx are final. */
  retries: number;
  /** First backoff delay; doubles on each retry. */
  retryDelayMs: number;
  log: (line: string) => void;
}

/** What Vercel answers (201): `{ job: { id, state, createdAt } }`. */
export interface DeployJob {
  id?: string;
  state?: string;
  createdAt?: number | string;
}

export class DeployHookError extends Error {
  override name = 'DeployHookError';
}

/** POST the hook. The URL is a secret, so no message here ever includes it. */
export async function triggerDeploy(url: string, options: DeployHookOptions): Promise<DeployJob> {
  let attempts = 0;
  try {
    return await pRetry(
      async () => {
        attempts += 1;
        let response: Response;
        try {
          response = await fetch(url, { method: 'POST', signal: AbortSignal.timeout(options.timeoutMs) });
        } catch (error) {
          const e = error as Error & { cause?: { code?: string; message?: string } };
          throw new DeployHookError(
            e.name === 'TimeoutError'
              ? `no answer within ${options.timeoutMs} ms`
              : (e.cause?.code ?? e.cause?.message ?? e.message),
          );
        }
        const body = await response.text().catch(() => '');
        if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
          // A wrong or deleted hook does not get better by asking again.
          throw new AbortError(
            new DeployHookError(
              `HTTP ${response.status}: the deploy hook was refused; check VERCEL_DEPLOY_HOOK_URL (the hook may have been deleted)`,
            ),
          );
        }
        if (!response.ok) throw new DeployHookError(`HTTP ${response.status}`);
        try {
          return ((JSON.parse(body) as { job?: DeployJob }).job ?? {}) satisfies DeployJob;
        } catch {
          return {};
        }
      },
      {
        retries: options.retries,
        minTimeout: options.retryDelayMs,
        factor: 2,
        onFailedAttempt: ({ error, attemptNumber, retriesLeft, retryDelay }) => {
          if (retriesLeft > 0)
            options.log(`deploy hook attempt ${attemptNumber} failed (${error.message}); retrying in ${retryDelay} ms`);
        },
      },
    );
  } catch (error) {
    throw new DeployHookError(`the deploy hook failed after ${attempts} attempt(s): ${(error as Error).message}`);
  }
}
