/** The small frontmatter the docs use: `key: value` lines between `---` fences. */
export function parseFrontmatter(source: string): { data: Record<string, string>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(source);
  if (!match) return { data: {}, body: source };
  const data: Record<string, string> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const pair = /^(\w+):\s*(.*)$/.exec(line);
    if (pair) data[pair[1]!] = pair[2]!.replace(/^"(.*)"$/, '$1');
  }
  return { data, body: source.slice(match[0].length) };
}
