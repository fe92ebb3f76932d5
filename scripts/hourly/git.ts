/** A small typed wrapper over `git`: run a command in one work tree, with one identity. */
import { execFile } from 'node:child_process';

export interface Identity {
  name: string;
  email: string;
}

/** The identity of the collector's commits (GitHub shows them as the Actions bot). */
export const BOT: Identity = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com',
};

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly code: number | string | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${code}): ${stderr.trim() || '(no output)'}`);
  }
}

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  code: number | string | null;
}

export interface Git {
  readonly dir: string;
  /** Run and return stdout; throws GitError when git exits non-zero. */
  (...args: string[]): Promise<string>;
  /** Run and report the outcome instead of throwing (for commands expected to fail sometimes). */
  attempt(...args: string[]): Promise<GitResult>;
}

export function gitIn(dir: string, options: { identity?: Identity; timeoutMs?: number } = {}): Git {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Never wait for a password prompt on a runner: fail, and let the retry or the run say so.
    GIT_TERMINAL_PROMPT: '0',
    // Every commit the chain makes, rebased ones included, carries this identity (a runner has none).
    ...(options.identity && {
      GIT_AUTHOR_NAME: options.identity.name,
      GIT_AUTHOR_EMAIL: options.identity.email,
      GIT_COMMITTER_NAME: options.identity.name,
      GIT_COMMITTER_EMAIL: options.identity.email,
    }),
  };
  const attempt = (...args: string[]) =>
    new Promise<GitResult>((done) => {
      execFile(
        'git',
        args,
        { cwd: dir, env, maxBuffer: 256 * 1024 * 1024, timeout: options.timeoutMs ?? 120_000 },
        (error, stdout, stderr) => {
          if (!error) return done({ ok: true, stdout, stderr, code: 0 });
          const code = (error as { code?: number | string }).code ?? (error as { signal?: string }).signal ?? null;
          done({ ok: false, stdout, stderr: stderr || error.message, code });
        },
      );
    });
  const git = async (...args: string[]) => {
    const result = await attempt(...args);
    if (!result.ok) throw new GitError(args, result.code, result.stderr);
    return result.stdout;
  };
  return Object.assign(git, { dir, attempt });
}
