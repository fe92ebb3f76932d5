/**
 * The configuration a production run cannot do without. On GitHub Actions a secret that is not
 * set expands to an empty string and nothing else complains, so the chain checks before it starts:
 * without these, collected rates would be committed but never served, or health would never learn
 * that collection ran.
 */
export interface Requirement {
  name: string;
  purpose: string;
}

export const REQUIRED_IN_CI: readonly Requirement[] = [
  {
    name: 'BLOB_READ_WRITE_TOKEN',
    purpose:
      'the Vercel Blob status store where the collector records lastChecked/lastError for production health; without it the status goes to the runner disk and is lost',
  },
  {
    name: 'VERCEL_DEPLOY_HOOK_URL',
    purpose:
      'the Vercel deploy hook (Project Settings → Git → Deploy Hooks, branch main) that deploys production after a push; without it new rates are committed but never served',
  },
];

/** CI (GitHub Actions) or an explicit flag makes the secrets required; a local run may go without. */
export function secretsRequired(env: NodeJS.ProcessEnv, flag: boolean): boolean {
  return flag || env.GITHUB_ACTIONS === 'true';
}

export function missingSecrets(env: NodeJS.ProcessEnv): Requirement[] {
  return REQUIRED_IN_CI.filter((r) => !env[r.name]?.trim());
}

/** One GitHub annotation per missing secret, saying what it is for and where to set it. */
export function missingSecretLines(missing: readonly Requirement[]): string[] {
  return missing.map(
    (r) =>
      `::error title=Missing secret ${r.name}::${r.name} is not set. It is ${r.purpose}. Add it under Settings → Secrets and variables → Actions (see /docs/deploying).`,
  );
}
