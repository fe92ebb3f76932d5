/**
 * The API and MCP endpoint as deployed: the compiled store that `npm run build:data` produced, embedded in the
 * server bundle, parsed once per process; the status store chosen from the environment.
 */
import compiledText from '@generated/served-store.json?raw';
import { mcpAllowedHostsFromEnv } from '../mcp/endpoint.ts';
import { createService } from '../service.ts';
import type { CompiledStore } from '../store/compile.ts';
import { ServedStore } from '../store/served-store.ts';
import { statusStoreFromEnv } from '../status/from-env.ts';

let store: Promise<ServedStore> | undefined;

function loadStore(): Promise<ServedStore> {
  store ??= Promise.resolve()
    .then(() => new ServedStore(JSON.parse(compiledText) as CompiledStore))
    .catch((error: unknown) => {
      store = undefined; // try again on the next request rather than failing forever
      throw error;
    });
  return store;
}

export const api = createService({ loadStore, status: statusStoreFromEnv() }, { allowedHosts: mcpAllowedHostsFromEnv() });
