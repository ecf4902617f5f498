const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** True for the names and addresses that stay on this machine. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.test(host);
}

/** The host part of a Host header (`name:port`, `[v6]:port`). */
export function hostOfHeader(header: string | undefined): string {
  if (!header) return '';
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  const colon = header.lastIndexOf(':');
  return colon >= 0 ? header.slice(0, colon) : header;
}

/** True for a peer address on this machine (IPv4 loopback, IPv6 ::1, or IPv4 loopback mapped into IPv6). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
