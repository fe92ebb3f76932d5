/** GET /api/v1/health: what health says (src/status/health.ts), as the endpoint's answer. */
import type { Answer } from '../http/answer.ts';
import type { Log } from '../lib/log.ts';
import { healthReport } from '../status/health.ts';
import type { StatusStore } from '../status/status-store.ts';
import type { ServedStore } from '../store/served-store.ts';
import { json } from './responses.ts';

export async function getHealth(
  loadStore: () => Promise<ServedStore>,
  status: StatusStore,
  now: Date,
  log: Log,
): Promise<Answer> {
  const body = await healthReport(loadStore, status, now, log);
  // Never kept by a cache: it says what is true now.
  return json(body, body.status === 'error' ? 503 : 200, 'never');
}
