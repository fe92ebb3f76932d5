/**
 * Everything the build prepares for the site and the functions, from the snapshot tree and
 * content/: the served store, real examples, the OpenAPI document, the docs pages, the search
 * index, llms.txt and the MCP server's documents. Written to GENERATED_DIR by scripts/build-data.ts.
 */
import { buildSearchIndex } from '../docs/search-index.ts';
import { llmsFullTxt, llmsTxt } from '../docs/llms.ts';
import { measureFigures } from '../docs/figures.ts';
import { loadDocPages, type DocPage } from '../docs/pages.ts';
import type { McpDocument } from '../mcp/resources.ts';
import { mcpDocuments } from './mcp-documents.ts';
import { collectExamples, unrecordedStatusStore } from '../examples.ts';
import { buildOpenApiDocument } from '../openapi/document.ts';
import { createService } from '../service.ts';
import { CompileError, compileSnapshotTree, newestOnly, type CompiledStore } from '../store/compile.ts';
import { reservedSlugProblems } from '../changes/endpoint.ts';
import { SnapshotFileError } from '../snapshots/tree.ts';
import { historyFiles, servedStoreOf } from '../store/history-build.ts';

export interface SiteData {
  store: CompiledStore;
  /** The history files the functions read, by path in the history folder (src/store/history-files.ts). */
  history: Map<string, string>;
  newest: CompiledStore;
  openapi: object;
  pages: DocPage[];
  searchIndex: string;
  llms: string;
  llmsFull: string;
  /** The docs pages and the OpenAPI document as the MCP server's resources. */
  mcpDocuments: McpDocument[];
}

export async function buildSiteData(options: {
  snapshotsDir: string;
  contentDir: string;
  site: string;
}): Promise<SiteData> {
  const store = await compileSnapshotTree(options.snapshotsDir);
  const reserved = reservedSlugProblems(store);
  if (reserved.length > 0) throw new CompileError(reserved.map((r) => new SnapshotFileError(r.file, [r.problem])));
  const history = historyFiles(store);
  const served = servedStoreOf(store, history);
  // Examples and figures come from the real core over the data being built; health answers as
  // `npm start` does on a fresh clone (no collection recorded), a state every reader can reproduce.
  const status = unrecordedStatusStore();
  const service = createService({ loadStore: async () => served, status, siteUrl: options.site });
  const examples = await collectExamples(service, options.site, status);
  const figures = await measureFigures(service, options.site);
  const pages = await loadDocPages({ contentDir: options.contentDir, site: options.site, examples, figures });
  const openapi = buildOpenApiDocument({ site: options.site, examples });
  return {
    store,
    history,
    newest: newestOnly(store),
    openapi,
    pages,
    searchIndex: buildSearchIndex(pages),
    llms: llmsTxt(pages, options.site, examples),
    llmsFull: llmsFullTxt(pages, options.site),
    mcpDocuments: mcpDocuments(pages, openapi),
  };
}
