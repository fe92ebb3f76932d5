/**
 * The client versions the docs' commands name: the versions the test suite runs (package.json's
 * devDependencies), so a bump of a tested client moves the docs with it.
 */
import packageJson from '../../package.json' with { type: 'json' };

const tested = (name: string): string => {
  const version = (packageJson.devDependencies as Record<string, string>)[name];
  if (!version || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`package.json: ${name} is not pinned to a version`);
  return version;
};

/**
 * `@modelcontextprotocol/inspector@<version>`: the Inspector whose `--cli` is the CLI the suite
 * tests (`@modelcontextprotocol/inspector-cli`, released with the same version).
 */
export const INSPECTOR_PACKAGE = `@modelcontextprotocol/inspector@${tested('@modelcontextprotocol/inspector-cli')}`;
