import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeId, slugify } from '../src/collect/ids.ts';
import { type Alias, INSTITUTION_ALIASES, institutionName } from '../src/collect/page-spellings.ts';
import { describeChanges, summaryMarkdown } from '../src/collect/summary.ts';
import { type Dataset, type DatasetSlug, type Entity, itemsOf } from '../src/datasets.ts';
import { valuesOf } from '../src/snapshots/diff.ts';
import { CreditCardIssuer, LoanInstitution, type LoanRate } from '../src/schemas/rates.ts';
import { datasetOfSchema, EACH } from './support/datasets.ts';
import { allRates, newestSnapshots, type SnapshotFile } from './support/history.ts';

const cards = datasetOfSchema(CreditCardIssuer);
const loans = datasetOfSchema(LoanInstitution);

const plan = (id: string, name: string, purchaseRate: number | null, annualFeeNZD: number | null) => ({
  id,
  name,
  purchaseRate,
  cashAdvanceRate: 21.95,
  balanceTransferRate: null,
  balanceTransferPeriod: null,
  interestFreeDays: 55,
  annualFeeNZD,
});

describe('change summary', () => {
  it('lists issuers and plans added or removed, and every value that moved', () => {
    const before = [
      {
        id: 'issuer:amex',
        name: 'Amex',
        plans: [plan('plan:amex:low-rate', 'Low Rate', 12.69, 59), plan('plan:amex:gold', 'Gold', 20.95, 200)],
      },
      { id: 'issuer:gem', name: 'Gem', plans: [plan('plan:gem:visa', 'Visa', 29.99, 55)] },
    ];
    const after = [
      {
        id: 'issuer:amex',
        name: 'Amex',
        plans: [plan('plan:amex:low-rate', 'Low Rate', 13.95, null), plan('plan:amex:blue', 'Blue', 19.95, 0)],
      },
      { id: 'issuer:kiwibank', name: 'Kiwibank', plans: [plan('plan:kiwibank:zero', 'Zero', 20.95, 0)] },
    ];
    const { lines, moves } = describeChanges(cards, before, after);
    expect(lines).toEqual([
      '- Issuers added: Kiwibank',
      '- Issuers removed: Gem',
      '- Added: Amex · Blue',
      '- Removed: Amex · Gold',
      '- Amex · Low Rate · purchase rate: up 126 bps, 12.69 → 13.95',
      '- Amex · Low Rate · annual fee: gone, 59 → —',
    ]);
    expect(moves).toBe(2);
  });

  it("says each move in the change log's words: bps for a rate, up or down alone for a fee or days, none for text", () => {
    const card = (fields: Record<string, unknown>) => [
      { id: 'issuer:amex', name: 'Amex', plans: [{ ...plan('plan:amex:low-rate', 'Low Rate', 12.69, 59), ...fields }] },
    ];
    const { lines } = describeChanges(
      cards,
      card({ cashAdvanceRate: 21.95, interestFreeDays: 55, balanceTransferPeriod: 'six months' }),
      card({
        purchaseRate: 12.44,
        cashAdvanceRate: 21.96,
        annualFeeNZD: 99,
        interestFreeDays: 44,
        balanceTransferPeriod: 'Six months',
      }),
    );
    expect(lines).toEqual([
      '- Amex · Low Rate · purchase rate: down 25 bps, 12.69 → 12.44',
      '- Amex · Low Rate · cash advance rate: up 1 bp, 21.95 → 21.96',
      '- Amex · Low Rate · balance transfer period: six months → Six months',
      '- Amex · Low Rate · interest free days: down, 55 → 44',
      '- Amex · Low Rate · annual fee: up, 59 → 99',
    ]);
  });

  it('labels loan rates by plan and condition, and reports new and dropped rates', () => {
    const rate = (id: string, value: number, condition: string) => ({ id, rate: value, plan: 'Unsecured', condition });
    const product = (rates: LoanRate[]) => [
      {
        id: 'institution:anz',
        name: 'ANZ',
        products: [{ id: 'product:anz:personal-loan', name: 'Personal Loan', rates }],
      },
    ];
    const { lines } = describeChanges(
      loans,
      product([
        rate('rate:anz:personal-loan:unsecured:from', 13.9, 'From'),
        rate('rate:anz:personal-loan:unsecured:to', 19.9, 'To'),
      ]),
      product([
        rate('rate:anz:personal-loan:unsecured:from', 12.9, 'From'),
        rate('rate:anz:personal-loan:unsecured:3000-to-50000', 14.9, '$3,000 to $50,000'),
      ]),
    );
    expect(lines).toEqual([
      '- ANZ · Personal Loan · Unsecured From: down 100 bps, 13.9 → 12.9',
      '- ANZ · Personal Loan · Unsecured $3,000 to $50,000: new, 14.9',
      '- ANZ · Personal Loan · Unsecured To: gone, was 19.9',
    ]);
  });

  it('names a rate, whatever its dataset: its term label, else its text fields, else its term in months, else its amounts', () => {
    const what = (rate: Record<string, unknown>) =>
      [
        ...valuesOf({ id: 'product:a:p', name: 'P', rates: [{ id: 'rate:a:p:x', rate: 5, ...rate }] } as any).values(),
      ].map((v) => v.what);
    expect(what({ term: '1 year', termInMonths: 12 })).toEqual(['1 year']);
    expect(what({ plan: 'Unsecured', condition: 'From' })).toEqual(['Unsecured From']);
    expect(what({ plan: null, condition: '$3,000 to $50,000' })).toEqual(['$3,000 to $50,000']);
    expect(what({ termInMonths: 6 })).toEqual(['6 months']);
    expect(what({ minimumDepositNZD: 5000 })).toEqual(['minimum deposit $5,000']);
    expect(what({ plan: null, condition: null })).toEqual(['rate']);
  });

  it('makes a commit message: subject line, blank line, a section per dataset', () => {
    const text = summaryMarkdown(
      [{ dataset: cards, file: `${cards.slug}/2026-11-21.json`, changes: { lines: ['- x'], moves: 3 } }],
      '2026-11-21',
    );
    expect(text).toBe(
      `Rates 2026-11-21: ${cards.label} (3 moved)\n\n### ${cards.title} — ${cards.slug}/2026-11-21.json\n\n- x\n`,
    );
  });
});

/** `entity` under another name: its id and every id inside it re-slugged, its items and values the same. */
function renamed(dataset: Dataset, entity: Entity, name: string): Entity {
  const from = entity.id.slice(entity.id.indexOf(':') + 1);
  const to = slugify(name);
  const copy = JSON.parse(JSON.stringify(entity), (key, value) =>
    key === 'id' && typeof value === 'string' ? value.replace(new RegExp(`^(\\w+):${from}(?=:|$)`), `$1:${to}`) : value,
  );
  expect(copy.id).toBe(makeId(dataset.entity.prefix, name));
  return { ...copy, name };
}

/** The alias object a summary line suggests, read by the TypeScript parser: a plain literal of three strings, or the test fails. */
function suggestedAlias(line: string): Alias {
  const literal = line.slice(line.indexOf('{ label:'), line.lastIndexOf('}') + 1);
  const source = `export const alias = ${literal};`;
  expect(ts.transpileModule(source, { reportDiagnostics: true }).diagnostics).toEqual([]);
  const file = ts.createSourceFile('alias.ts', source, ts.ScriptTarget.Latest);
  expect(file.statements).toHaveLength(1);
  const statement = file.statements[0] as ts.VariableStatement;
  const object = statement.declarationList.declarations[0]!.initializer!;
  if (!ts.isObjectLiteralExpression(object)) throw new Error(`not an object literal: ${literal}`);
  const fields = object.properties.map((property) => {
    if (!ts.isPropertyAssignment(property) || !ts.isStringLiteral(property.initializer))
      throw new Error(`not a string field: ${property.getText(file)}`);
    return [property.name.getText(file), property.initializer.text] as const;
  });
  expect(fields.map(([key]) => key)).toEqual(['label', 'name', 'evidence']);
  return Object.fromEntries(fields) as unknown as Alias;
}

/** Page text with the characters a quoted name must survive: an apostrophe, double quotes, a backslash. */
const NEW_NAME = `Kōwhai O'Brien "Home" Lending \\ Co`;

describe.each(EACH)('%s: a possible rename in the change summary', (_slug, dataset) => {
  let data: Entity[];
  /** An entity with items whose id is its name's (so an alias to its name gives back its id). */
  let old: Entity;
  beforeAll(async () => {
    const newest: Record<DatasetSlug, SnapshotFile> = await newestSnapshots();
    data = newest[dataset.slug].data;
    const candidates = data.filter((e) => itemsOf(e).length > 0 && makeId(dataset.entity.prefix, e.name) === e.id);
    old = candidates.find((e) => e.id === dataset.exampleEntityId) ?? candidates[0]!;
    expect(old).toBeDefined();
  });
  const without = (entity: Entity) => data.filter((e) => e !== entity);
  /** "3 products", "1 plan". */
  const counted = (entity: Entity) => {
    const n = itemsOf(entity).length;
    return `${n} ${n === 1 ? dataset.itemsKey.slice(0, -1) : dataset.itemsKey}`;
  };

  it('names the entity gone and the one new with the same items and values, with the alias line that joins them', () => {
    const now = renamed(dataset, old, NEW_NAME);
    const { lines } = describeChanges(dataset, data, [...without(old), now]);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(`- ${dataset.entity.label}s added: ${NEW_NAME}`);
    expect(lines[1]).toBe(`- ${dataset.entity.label}s removed: ${old.name}`);
    expect(
      lines[2]!.startsWith(
        `- Possible rename: ${JSON.stringify(old.name)} is gone and ${JSON.stringify(NEW_NAME)} is new, listing the same ${counted(old)} with the same values. `,
      ),
    ).toBe(true);
    expect(lines[2]).toContain('src/collect/page-spellings.ts (INSTITUTION_ALIASES)');
    expect(lines[2]!.endsWith(' },')).toBe(true);
  });

  it('suggests an alias line that parses as the object and, added to the table, joins the new label to the old name and id', () => {
    const now = renamed(dataset, old, NEW_NAME);
    const line = describeChanges(dataset, data, [...without(old), now]).lines.find((l) =>
      l.includes('Possible rename'),
    );
    const alias = suggestedAlias(line!);
    expect(alias).toMatchObject({ label: NEW_NAME, name: old.name });
    expect(alias.evidence).toContain(old.name);
    expect(institutionName(NEW_NAME)).toBe(NEW_NAME);
    const aliases = INSTITUTION_ALIASES as Alias[];
    aliases.push(alias);
    try {
      expect(institutionName(NEW_NAME)).toBe(old.name);
      expect(makeId(dataset.entity.prefix, institutionName(NEW_NAME))).toBe(old.id);
    } finally {
      aliases.pop();
    }
  });

  it('does not suggest an unrelated newcomer for an entity removed', () => {
    const donor = data.find((e) => itemsOf(e).length > 0 && itemsOf(e).length !== itemsOf(old).length)!;
    expect(donor).toBeDefined();
    const newcomer = renamed(dataset, donor, NEW_NAME);
    const { lines } = describeChanges(dataset, data, [...without(old), newcomer]);
    expect(lines.slice(0, 2)).toEqual([
      `- ${dataset.entity.label}s added: ${NEW_NAME}`,
      `- ${dataset.entity.label}s removed: ${old.name}`,
    ]);
    expect(lines.join('\n')).not.toContain('Possible rename');
  });

  it('does not suggest a renamed entity one of whose values also moved: the match is exact', () => {
    const now = renamed(dataset, old, NEW_NAME);
    const [rate] = allRates([now]);
    rate!.holder[rate!.key] = Math.round((rate!.value + (rate!.value > 30 ? -0.01 : 0.01)) * 100) / 100;
    const { lines } = describeChanges(dataset, data, [...without(old), now]);
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toContain('Possible rename');
  });

  it('names but suggests nothing when two new entities list the same as the one gone', () => {
    const twin = `${NEW_NAME} Two`;
    const { lines } = describeChanges(dataset, data, [
      ...without(old),
      renamed(dataset, old, NEW_NAME),
      renamed(dataset, old, twin),
    ]);
    expect(lines).toContain(
      `- Possible renames, none suggested: ${JSON.stringify(old.name)} gone and ${JSON.stringify(NEW_NAME)} and ${JSON.stringify(twin)} new each list the same ${counted(old)} with the same values, so the values cannot tell which is which.`,
    );
    expect(lines.join('\n')).not.toContain('{ label:');
  });

  it('suggests nothing for entities with no items', () => {
    const empty = (e: Entity) => ({ ...e, [dataset.itemsKey]: [] }) as Entity;
    const { lines } = describeChanges(
      dataset,
      [...data, empty(old)].filter((e) => e !== old),
      [...without(old), empty(renamed(dataset, old, NEW_NAME))],
    );
    expect(lines.join('\n')).not.toContain('Possible rename');
  });
});

describe('a possible rename, by hand', () => {
  it('counts 0 the same as null (the history holds null where the page says 0), in any order, and says "plan" for one', () => {
    const before = [
      { id: 'issuer:gem', name: 'Gem', plans: [plan('plan:gem:visa', 'Visa', 29.99, null)] },
      { id: 'issuer:amex', name: 'Amex', plans: [plan('plan:amex:gold', 'Gold', 20.95, 200)] },
    ];
    const after = [
      { id: 'issuer:amex', name: 'Amex', plans: [plan('plan:amex:gold', 'Gold', 20.95, 200)] },
      { id: 'issuer:gem-finance', name: 'Gem Finance', plans: [plan('plan:gem-finance:visa', 'Visa', 29.99, 0)] },
    ];
    const { lines } = describeChanges(cards, before, after);
    expect(lines).toEqual([
      '- Issuers added: Gem Finance',
      '- Issuers removed: Gem',
      '- Possible rename: "Gem" is gone and "Gem Finance" is new, listing the same 1 plan with the same values. ' +
        'If it is the same issuer, this line in src/collect/page-spellings.ts (INSTITUTION_ALIASES) joins them: ' +
        `{ label: 'Gem Finance', name: 'Gem', evidence: '${cards.label} page label; listed the same 1 plan and values as the history\\'s "Gem"' },`,
    ]);
  });
});
