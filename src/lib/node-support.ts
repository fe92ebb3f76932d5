/**
 * The oldest Node the service runs on, checked when a command or the server starts: on an older
 * Node it would start without a word and then fail a client (Node 20 lacks `JSON.rawJSON`, which
 * the MCP answers are written with, and answered every MCP request with a misleading 400).
 * Importing this module first refuses such a Node at once: one line naming the version needed,
 * exit code 1.
 */
export const OLDEST_NODE = '22.12.0';

/** Why `version` (`process.versions.node`) cannot run the service, or null when it can. */
export function unsupportedNode(version: string): string | null {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  const [needMajor = 0, needMinor = 0, needPatch = 0] = OLDEST_NODE.split('.').map(Number);
  const older = major !== needMajor ? major < needMajor : minor !== needMinor ? minor < needMinor : patch < needPatch;
  const [needed] = OLDEST_NODE.split(/\.0$/);
  return older ? `needs Node ${needed} or newer; this is v${version}` : null;
}

const refusal = unsupportedNode(process.versions.node);
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
