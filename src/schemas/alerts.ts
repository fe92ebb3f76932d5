/**
 * The answer of `GET /api/v1/<dataset>/alerts`: a JSON Feed 1.1 (https://jsonfeed.org/version/1.1),
 * the fields the feed writes and no others, so the OpenAPI document and the tests read one shape.
 */
import { z } from 'zod';

const JSON_FEED_VERSION = 'https://jsonfeed.org/version/1.1';

const AlertItem = z.strictObject({
  id: z
    .string()
    .describe('A tag URI: the dataset, the measure, the threshold, the lender if one, and the snapshot date.'),
  url: z.url().describe('The comparison page of the measure on the explorer (the dataset’s page where it has none).'),
  title: z.string().describe('What happened: the lowest rate crossed the threshold, either way, or moved past it.'),
  content_text: z
    .string()
    .describe('The new and the old lowest rate, who offers each, the snapshot date and the page.'),
  date_published: z.iso.datetime({ offset: true }).describe('When the snapshot that moved it was collected.'),
});

export const AlertsFeed = z.strictObject({
  version: z.literal(JSON_FEED_VERSION),
  title: z.string(),
  home_page_url: z.url(),
  feed_url: z.url().describe('This feed, its parameters in one order.'),
  description: z.string(),
  hubs: z
    .array(z.strictObject({ type: z.literal('WebSub'), url: z.url() }))
    .optional()
    .describe(
      'The WebSub hub that pushes this feed to its subscribers (JSON Feed 1.1 `hubs`), when the deployment names one (WEBSUB_HUB_URL); subscribe to `feed_url` there.',
    ),
  authors: z.array(z.strictObject({ name: z.string(), url: z.url() })),
  items: z
    .array(AlertItem)
    .describe('Newest first, at most 100: each crossing of the threshold, either way, and each move past it.'),
});
