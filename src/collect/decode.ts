/**
 * A page's bytes as the text it means. The charset is the one the page declares, as a browser
 * finds it (the WHATWG encoding sniffing, in short): a byte order mark, else the Content-Type
 * header's `charset`, else a `<meta charset>` or `<meta http-equiv="Content-Type"
 * content="…charset=…">` in the first PRESCAN_BYTES bytes, else UTF-8. The bytes are decoded
 * fatally: a byte that is no text in that charset, or a charset no decoder knows, is a
 * CharsetError naming the charset and where it was declared, never a U+FFFD in a lender's name.
 */
import { MIMEType } from 'node:util';

/** How far a browser looks for a `<meta>` charset (the WHATWG prescan's 1024 bytes). */
export const PRESCAN_BYTES = 1024;

/** A charset and where it was declared ("declared by a <meta> tag"), for messages. */
export interface Declared {
  label: string;
  by: string;
}

export class CharsetError extends Error {
  override name = 'CharsetError';
}

const BOMS: readonly [readonly number[], string][] = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

/** The `charset` parameter of a Content-Type header, if it has one (an unparsable header has none). */
function headerCharset(contentType: string | null): string | undefined {
  if (!contentType) return undefined;
  try {
    return new MIMEType(contentType).params.get('charset') ?? undefined;
  } catch {
    return undefined;
  }
}

/** The charset in a meta `content` ("text/html; charset=windows-1252"), as the WHATWG algorithm extracts it. */
function contentCharset(content: string): string | undefined {
  const m = /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))/i.exec(content);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

/**
 * The first charset a `<meta>` declares in the first PRESCAN_BYTES bytes, comments passed over.
 * The bytes are read as Latin-1, where every byte is one character: the markup is ASCII in every
 * charset a page may be in. The text is bounded, so these patterns cost at most its 1024 characters.
 */
function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, PRESCAN_BYTES)).toString(
    'latin1',
  );
  for (const [tag] of head.matchAll(/<!--[\s\S]*?-->|<meta[\s/][^>]*/gi)) {
    if (tag.startsWith('<!--')) continue;
    const attributes = new Map<string, string>();
    for (const a of tag.slice(5).matchAll(/([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
      const name = a[1]!.toLowerCase();
      if (!attributes.has(name)) attributes.set(name, a[2] ?? a[3] ?? a[4] ?? '');
    }
    const charset = attributes.get('charset');
    if (charset !== undefined) return charset;
    if (attributes.get('http-equiv')?.toLowerCase() === 'content-type') {
      const fromContent = contentCharset(attributes.get('content') ?? '');
      if (fromContent !== undefined) return fromContent;
    }
  }
  return undefined;
}

/** The charset the page declares, by the first of its byte order mark, its Content-Type header, a `<meta>`; UTF-8 when none does. */
export function declaredCharset(bytes: Uint8Array, contentType: string | null): Declared {
  const bom = BOMS.find(([marks]) => marks.every((b, i) => bytes[i] === b));
  if (bom) return { label: bom[1], by: 'declared by its byte order mark' };
  const header = headerCharset(contentType);
  if (header !== undefined) return { label: header, by: 'declared by the Content-Type header' };
  const meta = metaCharset(bytes);
  // A <meta> that says UTF-16 is read as UTF-8, as a browser does: markup that can be read as
  // ASCII is no UTF-16; x-user-defined is windows-1252 there (the WHATWG prescan).
  if (meta !== undefined) {
    const label = /^utf-16(?:[bl]e)?$/i.test(meta.trim())
      ? 'utf-8'
      : /^x-user-defined$/i.test(meta.trim())
        ? 'windows-1252'
        : meta;
    return { label, by: 'declared by a <meta> tag' };
  }
  return { label: 'utf-8', by: 'none declared, so UTF-8' };
}

/** The bytes decoded by the declared charset, fatally (a byte order mark is dropped). */
export function decodeText(bytes: Uint8Array, declared: Declared): string {
  const shown = JSON.stringify(declared.label.slice(0, 40));
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(declared.label.trim(), { fatal: true });
  } catch {
    throw new CharsetError(`charset ${shown}, ${declared.by}, is no charset a decoder knows`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new CharsetError(`the bytes are not valid ${decoder.encoding} (${declared.by})`);
  }
}
