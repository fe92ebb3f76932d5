/**
 * Who a connection is counted as, for the per-client and per-network connection bounds
 * (node-server.ts): the client's address, and its network — an IPv4 /24 or an IPv6 /64, the
 * blocks one holder of addresses usually gets. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, how a
 * server listening on `::` sees IPv4 clients) counts as the IPv4 address it carries.
 */
import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The address a client is counted by: IPv4-mapped IPv6 as IPv4, an IPv6 zone (`%eth0`) left out. */
export function clientAddress(remote: string): string {
  const mapped = MAPPED_IPV4.exec(remote);
  if (mapped) return mapped[1]!;
  const zone = remote.indexOf('%');
  return zone < 0 ? remote : remote.slice(0, zone);
}

/** An IPv6 address's eight 16-bit groups (an IPv4 tail, as in `64:ff9b::1.2.3.4`, as two). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const first = parse(head);
  if (tail === undefined) return first;
  const last = parse(tail);
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/** The client's network, as a key: `a.b.c.0/24` for IPv4, the first 64 bits and `::/64` for IPv6. */
export function networkOf(address: string): string {
  if (isIPv4(address)) return `${address.slice(0, address.lastIndexOf('.'))}.0/24`;
  if (isIPv6(address))
    return `${ipv6Groups(address)
      .slice(0, 4)
      .map((group) => group.toString(16))
      .join(':')}::/64`;
  return address; // not an IP address (a Unix socket's peer): counted by what it is
}
