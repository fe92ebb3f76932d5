/** The machine's own Node (Debian's), older than the service supports: what a user without the `node` devDependency runs. */
import { execFileSync } from 'node:child_process';

export const OLD_NODE = '/usr/bin/node';

/** Its version, without the `v`. */
export const oldNodeVersion = (): string =>
  execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
