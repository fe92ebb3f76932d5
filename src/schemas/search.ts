import { z } from 'zod';

/** GET /api/search query. */
export const SearchQuery = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .describe('Words to look for in the documentation.'),
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number written in digits')
    .refine((v) => Number(v) >= 1 && Number(v) <= 50, 'must be between 1 and 50')
    .optional()
    .describe('How many results, 1–50 (default 10).'),
});

const SearchResult = z.strictObject({
  title: z.string().describe('Title of the page.'),
  url: z.string().describe('Address of the section, with its anchor.'),
  section: z.string().describe('Heading of the section that matched.'),
  snippet: z.string().describe('Text around the match.'),
  score: z.number().describe('Relevance; higher is better.'),
});

export const SearchResponse = z.strictObject({
  query: z.string(),
  results: z.array(SearchResult),
});

export type SearchResult = z.infer<typeof SearchResult>;
export type SearchResponse = z.infer<typeof SearchResponse>;
