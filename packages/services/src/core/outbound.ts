/**
 * The one way the server makes a request to a URL someone else chose (webhook, Slack/Mattermost, ntfy, Web
 * Push, SMTP): the destination must be a public unicast address unless the operator's OUTBOUND_ALLOW names
 * it. Names are resolved inside the connection's own `lookup`, so the address that was checked is the one
 * connected to (a DNS answer that changes between the check and the connect cannot aim it inward).
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from './errors';

type TAddr = ipaddr.IPv4 | ipaddr.IPv6;
type TCidr = [TAddr, number];

/**
 * Cloud metadata and host-agent services: refused even when an OUTBOUND_ALLOW range covers them, because
 * they hand out the machine's credentials (AWS/GCP/Azure/OpenStack, AWS IPv6, Azure wireserver, Alibaba,
 * Oracle).
 */
const METADATA = [
  '169.254.169.254',
  '169.254.170.2',
  'fd00:ec2::254',
  '168.63.129.16',
  '100.100.100.200',
  '192.0.0.192',
].map((m) => ipaddr.parse(m));
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const V4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** Delivery-log and error text: fixed, so a refused or failed request tells nothing about the target. */
export const OUTBOUND_REASONS = {
  refused: 'destination refused: not a public address',
  failed: 'connection failed',
  timeout: 'timed out',
} as const;

/** A request that did not get an HTTP answer; `message` is one of OUTBOUND_REASONS. */
export class OutboundError extends Error {
  constructor(readonly reason: keyof typeof OUTBOUND_REASONS) {
    super(OUTBOUND_REASONS[reason]);
    this.name = 'OutboundError';
  }
}

/** `OUTBOUND_ALLOW`: comma-separated CIDRs or single addresses; throws naming the entry that does not parse. */
export function parseAllowList(s: string | undefined): TCidr[] {
  const out: TCidr[] = [];
  for (const raw of (s ?? '').split(',')) {
    const e = raw.trim();
    if (!e) continue;
    try {
      if (e.includes('/')) out.push(ipaddr.parseCIDR(e));
      else {
        const a = ipaddr.parse(e);
        out.push([a, a.kind() === 'ipv4' ? 32 : 128]);
      }
    } catch {
      throw new Error(`OUTBOUND_ALLOW: '${e}' is not an IP address or CIDR range (e.g. 10.1.0.0/16)`);
    }
  }
  return out;
}

const inAllow = (a: TAddr, allow: TCidr[]) =>
  allow.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));

const embeddedV4 = (a: ipaddr.IPv6, at: number) => {
  const b = a.toByteArray();
  return new ipaddr.IPv4(b.slice(at, at + 4));
};

/**
 * Why an address may not be a destination, or null when it may. Public unicast only: loopback, private
 * (RFC 1918, ULA), link-local, CGNAT, multicast, unspecified, broadcast, documentation and other reserved
 * ranges are refused. IPv6 forms that carry an IPv4 address (mapped ::ffff:, NAT64 64:ff9b::/96, 6to4) are
 * judged by that IPv4 address; IPv4-compatible ::/96 and Teredo are refused outright.
 */
export function refuseAddress(ip: string, allow: TCidr[] = []): string | null {
  let given: TAddr;
  try {
    given = ipaddr.parse(ip.replace(/^\[|\]$/g, ''));
  } catch {
    return 'not an IP address';
  }
  let a = given;
  let compatible = false;
  if (given.kind() === 'ipv6') {
    const v6 = given as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) a = v6.toIPv4Address();
    else if (v6.match(NAT64)) a = embeddedV4(v6, 12);
    else if (v6.match(SIX_TO_FOUR)) a = embeddedV4(v6, 2);
    else compatible = v6.match(V4_COMPATIBLE) && v6.range() !== 'loopback' && v6.range() !== 'unspecified';
  }
  if (METADATA.some((m) => m.toString() === a.toString())) return 'a cloud metadata address';
  if (inAllow(a, allow) || inAllow(given, allow)) return null;
  if (compatible) return 'an IPv4-compatible or unspecified address';
  const range = a.range();
  return range === 'unicast' ? null : `a ${range} address`;
}

export interface TOutbound {
  /** Refuses (AppError BAD_REQUEST naming `field`) a URL whose host is or resolves to a refused address. */
  checkUrl(url: string, field: string, opts?: { https?: boolean }): Promise<void>;
  /** POSTs to a checked, pinned address; throws OutboundError, or Error `HTTP <status>` on a non-2xx. */
  post(url: string, body: string, headers: Record<string, string>, timeoutMs?: number): Promise<void>;
  /** For libraries that connect themselves (web-push): resolves and checks inside the connect. */
  httpsAgent: https.Agent;
  /** Throws OutboundError('refused') unless every address of `host` may be a destination. */
  resolve(host: string): Promise<string>;
}

/** Looks a name up and checks every answer; the connect uses what was checked. */
function pinnedLookup(allow: TCidr[]): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, cb: (...a: unknown[]) => void) => {
    dns.lookup(hostname, { all: true, family: options.family ?? 0 }, (err, addrs) => {
      if (err) return cb(err);
      if (!addrs.length || addrs.some((x) => refuseAddress(x.address, allow)))
        return cb(new OutboundError('refused'));
      if (options.all) cb(null, addrs);
      else cb(null, addrs[0]!.address, addrs[0]!.family);
    });
  }) as unknown as net.LookupFunction;
}

const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, '');

export function createOutbound(opts: { allow?: string } = {}): TOutbound {
  const allow = parseAllowList(opts.allow);
  const lookup = pinnedLookup(allow);
  const resolve = (host: string) =>
    new Promise<string>((res, rej) => {
      if (net.isIP(host)) return refuseAddress(host, allow) ? rej(new OutboundError('refused')) : res(host);
      (lookup as unknown as (h: string, o: object, cb: (e: Error | null, a?: string) => void) => void)(
        host,
        {},
        (e, a) => (e ? rej(e instanceof OutboundError ? e : new OutboundError('failed')) : res(a!)),
      );
    });

  return {
    httpsAgent: new https.Agent({ lookup, keepAlive: false }),
    resolve,

    async checkUrl(url, field, o = {}) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        throw new AppError('BAD_REQUEST', `${field}: not a URL`);
      }
      if (o.https ? u.protocol !== 'https:' : u.protocol !== 'http:' && u.protocol !== 'https:')
        throw new AppError('BAD_REQUEST', `${field}: must be an ${o.https ? 'https' : 'http(s)'} URL`);
      const host = hostOf(u);
      const refuse = (why: string) =>
        new AppError(
          'BAD_REQUEST',
          `${field}: ${u.host} is ${why}; only public addresses are reachable (an operator may allow others with OUTBOUND_ALLOW)`,
        );
      if (net.isIP(host)) {
        const why = refuseAddress(host, allow);
        if (why) throw refuse(why);
        return;
      }
      // An unknown name is accepted here (nothing to aim at yet); every send resolves and checks again.
      const addrs = await dns.promises.lookup(host, { all: true }).catch(() => []);
      for (const x of addrs) {
        const why = refuseAddress(x.address, allow);
        if (why) throw refuse(`${why} (${x.address})`);
      }
    },

    post(url, body, headers, timeoutMs = 10_000) {
      return new Promise<void>((resolveP, reject) => {
        let u: URL;
        try {
          u = new URL(url);
        } catch {
          return reject(new OutboundError('refused'));
        }
        if (u.protocol !== 'http:' && u.protocol !== 'https:') return reject(new OutboundError('refused'));
        const host = hostOf(u);
        if (net.isIP(host) && refuseAddress(host, allow)) return reject(new OutboundError('refused'));
        const mod = u.protocol === 'https:' ? https : http;
        // No agent: one connection per request, resolved by `lookup` (redirects are never followed).
        const req = mod.request(
          {
            method: 'POST',
            hostname: host,
            port: u.port || undefined,
            path: `${u.pathname}${u.search}`,
            auth: u.username
              ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`
              : undefined,
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            lookup,
            agent: false,
            signal: AbortSignal.timeout(timeoutMs),
          },
          (res) => {
            // The body is never read into anything: only the status is kept.
            res.resume();
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolveP();
            else reject(new Error(`HTTP ${status}`));
          },
        );
        req.on('error', (err) =>
          reject(
            err instanceof OutboundError
              ? err
              : new OutboundError(
                  err.name === 'AbortError' || err.name === 'TimeoutError' ? 'timeout' : 'failed',
                ),
          ),
        );
        req.end(body);
      });
    },
  };
}

/** The outbound of deps, or one with no allowances (everything non-public refused). */
const strict = createOutbound();
export const outboundOf = (deps: { outbound?: TOutbound }) => deps.outbound ?? strict;
