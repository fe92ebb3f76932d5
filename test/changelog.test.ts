/** CHANGELOG.md keeps the Keep a Changelog form the site's page and feed are made from (src/docs/changelog.ts). */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changelogFeed, changelogMarkdown, parseChangelog } from '../src/docs/changelog.ts';
import { ROOT } from './support/constants.ts';

const FILE = await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8');
const newerFirst = (a: string, b: string) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return x![i]! > y![i]!;
  return false;
};

describe('CHANGELOG.md', () => {
  it('opens with Unreleased, then releases with semantic versions and dates, newest first', () => {
    const [unreleased, ...released] = parseChangelog(FILE);
    expect(unreleased).toMatchObject({ version: 'Unreleased', date: null });
    expect(released.length).toBeGreaterThan(0);
    for (const r of released) {
      expect(r.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(r.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    for (let i = 1; i < released.length; i++) {
      expect(newerFirst(released[i - 1]!.version, released[i]!.version)).toBe(true);
      expect(released[i - 1]!.date! >= released[i]!.date!).toBe(true);
    }
  });

  it('a heading that is not a release, or a release with no date, stops the build naming it', () => {
    expect(() => parseChangelog('# Changelog\n\n## Notes\n')).toThrow('"## Notes" is not a release heading');
    expect(() => parseChangelog('# Changelog\n\n## [2.0.0]\n')).toThrow('release 2.0.0 has no date');
    expect(() => changelogFeed('# Changelog\n\n## [Unreleased]\n\n- a\n', 'https://rates.example')).toThrow(
      'no dated release',
    );
  });

  it("the page links the site's docs, not the repository's files, and says where to follow the releases", () => {
    const markdown = changelogMarkdown(
      '# Changelog\n\nSee [stability](content/docs/stability.md#ids).\n\n## [Unreleased]\n',
    );
    expect(markdown).toContain('[stability](/docs/stability#ids)');
    expect(markdown).toContain('(/docs/changelog.atom)');
    expect(markdown.indexOf('/docs/changelog.atom')).toBeLessThan(markdown.indexOf('## [Unreleased]'));
  });

  it('the feed is the same bytes for the same file: its times are the releases’ dates, never the build’s', () => {
    expect(changelogFeed(FILE, 'https://rates.example')).toBe(changelogFeed(FILE, 'https://rates.example'));
    const feed = changelogFeed(
      '# C\n\n## [Unreleased]\n\n## [1.1.0] - 2026-12-01\n\n- b\n\n## [1.0.0] - 2026-11-26\n\n- a\n',
      'https://rates.example',
    );
    expect(feed).toContain('<updated>2026-12-01T00:00:00.000Z</updated>');
    expect(feed.match(/<entry>/g)).toHaveLength(2);
  });
});
