/**
 * GET /api/v1/status: each dataset's collection reliability over the run log's window
 * (src/status/figures.ts), as the endpoint's answer.
 */
import type { Answer } from '../http/answer.ts';
import type { Log } from '../lib/log.ts';
import { statusFigures } from '../status/figures.ts';
import { readRunLog } from '../status/report.ts';
import type { StatusStore } from '../status/status-store.ts';
import { json } from './responses.ts';

export async function getStatus(status: StatusStore, now: Date, log: Log): Promise<Answer> {
  // The log is read up to RUN_LOG_MAX_BYTES and, where deployed, at most once per STATUS_CACHE_MS (cachedStatusStore).
  const body = statusFigures(await readRunLog(status, now, log), status.kind, now);
  // Never kept by a cache, like health: its hours since the last good run are counted to this request's clock.
  return json(body, 200, 'never');
}
