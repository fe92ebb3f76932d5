import { z } from 'zod';
import { SnapshotDate } from './common.ts';

/** Query and path parameters. Every value is a string, as on the wire and in MCP tool arguments. */
export const TermInMonthsParam = z.string().regex(/^\d+$/, 'must be a whole number of months written in digits');
export const DateParam = SnapshotDate;
export const EntityIdParam = z.string().min(1, 'must not be empty');
