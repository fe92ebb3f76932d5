/** What an agent is told about this server in `initialize` and `server/discover`. */
import { API_PREFIX } from '../endpoints.ts';
import { FIXED_TERM_MONTHS_PROSE } from '../schemas/terms.ts';
import { LIMITS, mib } from './protocol.ts';

export const SERVER_INFO = { name: 'nz-rates', title: 'New Zealand lending rates', version: '1.0.0' };

export const INSTRUCTIONS = `New Zealand lending rates, collected hourly from interest.co.nz: read-only tools, no authentication.

Datasets (three tools each): mortgage rates, personal loan rates, car loan rates (by institution), and credit card rates (by issuer).
- list_<dataset>: the newest rates of every institution or issuer, with their ids.
- get_<dataset>_by_institution / get_credit_card_rates_by_issuer: one institution or issuer.
- get_<dataset>_time_series: earlier snapshots.

Ids: institutions are "institution:<slug>" (e.g. institution:asb), credit card issuers "issuer:<slug>" (e.g. issuer:amex). They are matched case-insensitively and do not change between collections; call a list tool first to find them.

Every argument is a string. Mortgage tools take termInMonths ("12": digits, ${FIXED_TERM_MONTHS_PROSE}; a JSON number is accepted too) to keep only fixed rates of that term; variable floating rates are then left out.

Time series: give date (YYYY-MM-DD, one snapshot) or startDate and endDate (inclusive range), never both; with no date the result lists availableDates. A snapshot exists only on dates when rates changed; rates on other dates equal the nearest earlier snapshot. A date without a snapshot is an error (no_data). One result may hold at most ${mib(LIMITS.resultBytes)}: the whole mortgage history is several MB, so for long periods pass institutionId or a range of a few weeks (each time-series tool's description states the sizes).

Rates are percentages per year (4.29 means 4.29 %). Results are the same JSON as the REST API at ${API_PREFIX}. The data may be incorrect: the institution is the authority for its rates; each result carries the terms of use.`;
