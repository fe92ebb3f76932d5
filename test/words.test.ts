/**
 * The phrases the pages generate come from one helper (src/lib/words.ts): "a" or "an" as the word
 * is said, a name's possessive, a term before a noun. Checked on every phrase the explorer makes,
 * for every dataset and measure, and on every lender name of the history.
 */
import { describe, expect, it } from 'vitest';
import { DATASETS } from '../src/datasets.ts';
import { EXPLORER, type ExplorerDefinition } from '../src/explorer/definitions.ts';
import { possessive, termBeforeNoun, withArticle } from '../src/lib/words.ts';
import { newestSnapshots } from './support/history.ts';

describe('words', () => {
  it.each([
    ['unsecured car loan rate', 'an unsecured car loan rate'],
    ['other personal loan rate', 'an other personal loan rate'],
    ['1-year fixed mortgage rate', 'a 1-year fixed mortgage rate'],
    ['18-month fixed mortgage rate', 'an 18-month fixed mortgage rate'],
    ['8.99 % rate', 'an 8.99 % rate'],
    ['11-year loan', 'an 11-year loan'],
    ['variable floating mortgage rate', 'a variable floating mortgage rate'],
    ['purchase credit card rate', 'a purchase credit card rate'],
    ['issuer', 'an issuer'],
    ['institution', 'an institution'],
    ['unit', 'a unit'],
    ['hour', 'an hour'],
  ])('%s → %s', (phrase, said) => {
    expect(withArticle(phrase)).toBe(said);
  });

  it.each([
    ['ANZ', "ANZ's"],
    ['CFML Loans', "CFML Loans'"],
    ['Westpac', "Westpac's"],
    ['Auck. Dist. Law Society', "Auck. Dist. Law Society's"],
    ['Toyota Financial Services', "Toyota Financial Services'"],
  ])('the possessive of %s is %s', (name, whose) => {
    expect(possessive(name)).toBe(whose);
  });

  it.each([
    ['1 year', '1-year'],
    ['3 years', '3-year'],
    ['6 months', '6-month'],
    ['18 months', '18-month'],
    ['Variable floating', 'Variable floating'],
  ])('%s before a noun is %s', (term, said) => {
    expect(termBeforeNoun(term)).toBe(said);
  });

  it('every value noun of every dataset reads with its article, and no term stands plural before a noun', () => {
    for (const dataset of DATASETS) {
      const definition = EXPLORER[dataset.slug] as ExplorerDefinition;
      for (const measure of definition.measures) {
        const noun = definition.valueNoun(measure);
        expect(noun, dataset.slug).not.toMatch(/\b\d+ (?:years|months)\b|\b\d+ year\b|\b\d+ month\b/);
        const said = withArticle(noun);
        expect(said).toMatch(/^an? /);
        expect(said.startsWith('an '), said).toBe(/^(?:[aeiou]|8|11|18)/i.test(noun));
      }
    }
  });

  it("every lender name of the history makes a possessive with one apostrophe, never “s's”", async () => {
    const newest = await newestSnapshots();
    for (const { data } of Object.values(newest))
      for (const entity of data) {
        const whose = possessive(entity.name);
        expect(whose).not.toMatch(/s's$/i);
        expect(whose.startsWith(entity.name)).toBe(true);
      }
  });
});
