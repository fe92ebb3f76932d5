/**
 * How the data is collected, in the words the summaries use (the OpenAPI description, llms.txt,
 * the reference pages, server.json): the collector looks every hour (.github/workflows/collect.yml),
 * and a dataset gets a snapshot only when its rates changed (/docs/concepts#snapshots-and-time-series),
 * so "collected hourly" would promise a snapshot an hour.
 */
export const COLLECTION_WORDS =
  'interest.co.nz is checked every hour; a dataset gets a new snapshot only when its rates change (at most one per UTC date).';

/** The same, short: server.json's description has room for a hundred characters. */
export const CHECKED_HOURLY = 'checked hourly';
