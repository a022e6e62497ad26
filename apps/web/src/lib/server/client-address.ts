import { isIP } from 'node:net';
import type { RequestEvent } from '@sveltejs/kit';
import { getEnv } from './env';

/** Header the hook sets (after dropping any sent by the client) so better-auth's limiter keys by it. */
export const CLIENT_IP_HEADER = 'x-clusterscope-client-ip';

const normalise = (ip: string) => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

/**
 * The client's address: the socket peer, or, when `trustProxy` names how many proxies stand in front
 * of the server, the X-Forwarded-For entry the outermost trusted proxy appended (each proxy appends the
 * peer it saw, so with N proxies the client is N entries from the right). Entries further left are
 * whatever the client sent and are never trusted.
 */
export function resolveClientAddress(
  socket: string,
  forwardedFor: string | null,
  trustProxy: number,
): string {
  if (trustProxy > 0 && forwardedFor) {
    const hops = forwardedFor
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const ip = hops[Math.max(0, hops.length - trustProxy)];
    if (ip && isIP(normalise(ip))) return normalise(ip);
  }
  return normalise(socket);
}

/** The request's client address under this server's TRUST_PROXY setting. */
export function clientAddress(event: RequestEvent): string {
  return resolveClientAddress(
    event.getClientAddress(),
    event.request.headers.get('x-forwarded-for'),
    getEnv().TRUST_PROXY,
  );
}
