/**
 * The limits of the self-hosted server (`npm start`): how long a client may take and how much it
 * may hold. Each is an environment variable with a default sized for a small public service; the
 * docs' limits page lists them with the error a client gets. (On Vercel the platform sets its own.)
 */
export interface ServerLimits {
  /** Time to send the whole request head (request line and headers): slow-header clients are cut off with 408. */
  headersTimeoutMs: number;
  /** Time to send the whole request, body included: slow-body clients are cut off with 408. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept between requests. */
  keepAliveTimeoutMs: number;
  /** A connection with no progress either way for this long is dropped: above all, a client that stops reading its answer. */
  stalledTimeoutMs: number;
  /** Open connections at once; one more is answered 503 and closed. */
  maxConnections: number;
  /**
   * Open connections at once from one client address, so that one source cannot hold the whole
   * cap and starve the others; one more is answered 503 and closed. Behind a proxy every client
   * has the proxy's address: raise it there, or let the proxy bound clients.
   */
  maxConnectionsPerClient: number;
  /**
   * Open connections at once from one client network — an IPv4 /24 or an IPv6 /64, what one
   * holder of addresses usually has — so that many addresses of one network cannot hold the whole
   * cap either; one more is answered 503 and closed. At least maxConnectionsPerClient, as each
   * client's connections count toward its network's.
   */
  maxConnectionsPerNetwork: number;
  /** Request line and headers together, in bytes; more is answered 431. */
  maxHeaderBytes: number;
  /** A declared request body larger than this is answered 413 before routing (MCP keeps its own, smaller limit). */
  maxBodyBytes: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  stalledTimeoutMs: 30_000,
  maxConnections: 1_000,
  maxConnectionsPerClient: 100,
  maxConnectionsPerNetwork: 200,
  maxHeaderBytes: 16 * 1024,
  maxBodyBytes: 1024 * 1024,
};

/** Each limit's environment variable. */
export const LIMIT_VARIABLES: Record<keyof ServerLimits, string> = {
  headersTimeoutMs: 'HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'REQUEST_TIMEOUT_MS',
  keepAliveTimeoutMs: 'KEEP_ALIVE_TIMEOUT_MS',
  stalledTimeoutMs: 'STALLED_TIMEOUT_MS',
  maxConnections: 'MAX_CONNECTIONS',
  maxConnectionsPerClient: 'MAX_CONNECTIONS_PER_CLIENT',
  maxConnectionsPerNetwork: 'MAX_CONNECTIONS_PER_NETWORK',
  maxHeaderBytes: 'MAX_HEADER_BYTES',
  maxBodyBytes: 'MAX_BODY_BYTES',
};

/** The limits from the environment; a value that is not a positive whole number stops the server at start, named. */
export function limitsFromEnv(env: Record<string, string | undefined> = process.env): ServerLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(LIMIT_VARIABLES) as (keyof ServerLimits)[]) {
    const name = LIMIT_VARIABLES[key];
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
      throw new Error(`${name} must be a positive whole number, got ${JSON.stringify(raw)}`);
    }
    limits[key] = Number(raw);
  }
  // Node requires the head's deadline to be no later than the whole request's.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error(
      `${LIMIT_VARIABLES.headersTimeoutMs} (${limits.headersTimeoutMs}) must not exceed ${LIMIT_VARIABLES.requestTimeoutMs} (${limits.requestTimeoutMs})`,
    );
  }
  // A client's connections count toward its network's: a smaller network bound would be the client's.
  if (limits.maxConnectionsPerClient > limits.maxConnectionsPerNetwork) {
    throw new Error(
      `${LIMIT_VARIABLES.maxConnectionsPerClient} (${limits.maxConnectionsPerClient}) must not exceed ${LIMIT_VARIABLES.maxConnectionsPerNetwork} (${limits.maxConnectionsPerNetwork})`,
    );
  }
  return limits;
}
