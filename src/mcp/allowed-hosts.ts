/** DNS-rebinding protection settings, kept apart from the MCP module so reading them loads no SDK. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const LOOPBACK_HOST_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * On for a server bound to loopback (the `npm start` default), off on Vercel or when HOST is a
 * public interface. MCP_ALLOWED_HOSTS (comma-separated) adds names to the loopback names, and
 * turns the protection on whatever HOST is; `*` among them means any host (off). The endpoint
 * adds the host of the site URL to any list (src/mcp/endpoint.ts), so a deployment behind a proxy
 * on the same machine answers its own public domain with no setting.
 */
export function mcpAllowedHostsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const added = (env.MCP_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  if (added.includes('*')) return undefined;
  if (added.length > 0) return [...LOOPBACK_HOST_NAMES, ...added];
  if (env.VERCEL || !LOOPBACK.has(env.HOST ?? '127.0.0.1')) return undefined;
  return LOOPBACK_HOST_NAMES;
}
