/**
 * The OpenAPI document as the build writes it over the test history, its examples answered by the
 * real core with a collector's status recorded, dereferenced; and a validator for its schemas.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { collectExamples, healthyStatusStore } from '../../src/examples.ts';
import { buildOpenApiDocument } from '../../src/openapi/document.ts';
import { createService, type Service } from '../../src/service.ts';
import { compileSnapshotTree } from '../../src/store/compile.ts';
import { servedStoreOf } from '../../src/store/history-build.ts';
import { SITE } from './constants.ts';
import { historyDir } from './history.ts';

/** `service` is the core that answered the examples: a test asks it again to see they are real. */
export async function documentOverHistory(): Promise<{ doc: any; ajv: Ajv2020; service: Service }> {
  const store = servedStoreOf(await compileSnapshotTree(historyDir()));
  const service = createService({ loadStore: async () => store, status: healthyStatusStore(store), siteUrl: SITE });
  const examples = await collectExamples(service, SITE);
  const { dereference } = await import('@readme/openapi-parser');
  const doc: any = await dereference(structuredClone(buildOpenApiDocument({ site: SITE, examples })) as any);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return { doc, ajv, service };
}
