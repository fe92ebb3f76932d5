/** DNS-rebinding protection settings, kept apart from the MCP module so reading them loads no SDK. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const LOOPBACK_HOST_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * On for a server bound to loopback (the `npm start` default), off on Vercel or when HOST is a
 * public interface. MCP_ALLOWED_HOSTS (comma-separated, or `*` for any) overrides. The endpoint
 * adds the host of the site URL to any list (src/mcp/endpoint.ts), so a deployment behind a proxy
 * on the same machine answers its own public domain with no setting.
 */
export function mcpAllowedHostsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const explicit = env.MCP_ALLOWED_HOSTS?.trim();
  if (explicit)
    return explicit === '*'
      ? undefined
      : explicit
          .split(',')
          .map((h) => h.trim())
          .filter(Boolean);
  if (env.VERCEL || !LOOPBACK.has(env.HOST ?? '127.0.0.1')) return undefined;
  return LOOPBACK_HOST_NAMES;
}
