import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from './errors';
import { createOutbound, OutboundError, parseAllowList, refuseAddress } from './outbound';

/** Every URL spelling of an inward address that must be refused (WHATWG URL canonicalises the IPv4 ones). */
const INWARD: [string, string][] = [
  ['http://127.0.0.1/', 'loopback'],
  ['http://127.0.0.1:5432/', 'loopback'],
  ['http://127.1/', 'loopback (short form)'],
  ['http://127.0.1/', 'loopback (three parts)'],
  ['http://2130706433/', 'loopback (decimal)'],
  ['http://0177.0.0.1/', 'loopback (octal)'],
  ['http://017700000001/', 'loopback (octal, one part)'],
  ['http://0x7f.1/', 'loopback (hex, short)'],
  ['http://0x7f000001/', 'loopback (hex, one part)'],
  ['http://0x7F.0x00.0x00.0x01/', 'loopback (hex parts)'],
  ['http://127.0.0.1./', 'loopback (trailing dot)'],
  ['http://localhost/', 'localhost'],
  ['http://localhost:8080/x', 'localhost with port'],
  ['http://0.0.0.0/', 'unspecified'],
  ['http://0/', 'unspecified (one part)'],
  ['http://[::]/', 'IPv6 unspecified'],
  ['http://[::1]/', 'IPv6 loopback'],
  ['http://[0:0:0:0:0:0:0:1]/', 'IPv6 loopback (long)'],
  ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
  ['http://[::ffff:7f00:1]/', 'IPv4-mapped loopback (hex)'],
  ['http://[::ffff:10.0.0.1]/', 'IPv4-mapped private'],
  ['http://[::ffff:169.254.169.254]/', 'IPv4-mapped metadata'],
  ['http://[::127.0.0.1]/', 'IPv4-compatible loopback'],
  ['http://[64:ff9b::127.0.0.1]/', 'NAT64 loopback'],
  ['http://[64:ff9b::a00:1]/', 'NAT64 private'],
  ['http://[2002:7f00:1::]/', '6to4 loopback'],
  ['http://10.0.0.1/', 'RFC 1918 10/8'],
  ['http://172.16.0.1/', 'RFC 1918 172.16/12'],
  ['http://172.31.255.255/', 'RFC 1918 172.16/12 top'],
  ['http://192.168.1.1/', 'RFC 1918 192.168/16'],
  ['http://3232235777/', 'RFC 1918 (decimal 192.168.1.1)'],
  ['http://[fc00::1]/', 'ULA fc00::/7'],
  ['http://[fd12:3456::1]/', 'ULA fd'],
  ['http://169.254.169.254/latest/meta-data/', 'AWS/GCP metadata'],
  ['http://169.254.170.2/', 'ECS task metadata'],
  ['http://[fd00:ec2::254]/', 'AWS IPv6 metadata'],
  ['http://168.63.129.16/', 'Azure wireserver'],
  ['http://100.100.100.200/', 'Alibaba metadata'],
  ['http://169.254.1.1/', 'link-local'],
  ['http://[fe80::1]/', 'IPv6 link-local'],
  ['http://100.64.0.1/', 'CGNAT'],
  ['http://100.127.255.254/', 'CGNAT top'],
  ['http://224.0.0.1/', 'multicast'],
  ['http://239.255.255.250/', 'multicast SSDP'],
  ['http://[ff02::1]/', 'IPv6 multicast'],
  ['http://255.255.255.255/', 'broadcast'],
  ['http://240.0.0.1/', 'reserved 240/4'],
  ['http://192.0.2.1/', 'documentation'],
  ['http://198.18.0.1/', 'benchmarking'],
  ['http://[2001:db8::1]/', 'IPv6 documentation'],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '2606:4700:4700::1111',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
];

describe('refuseAddress', () => {
  it.each(PUBLIC)('allows the public address %s', (ip) => expect(refuseAddress(ip)).toBeNull());

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['::1', 'loopback'],
    ['::7f00:1', 'IPv4-compatible'],
    ['fd00::1', 'uniqueLocal'],
    ['169.254.169.254', 'metadata'],
  ])('names why %s is refused', (ip, why) => expect(refuseAddress(ip)).toContain(why));

  it('OUTBOUND_ALLOW opens exactly its ranges, never cloud metadata', () => {
    const allow = parseAllowList('127.0.0.1/32, 10.1.0.0/16,::1,169.254.0.0/16');
    expect(refuseAddress('127.0.0.1', allow)).toBeNull();
    expect(refuseAddress('::ffff:127.0.0.1', allow)).toBeNull();
    expect(refuseAddress('127.0.0.2', allow)).not.toBeNull();
    expect(refuseAddress('10.1.200.3', allow)).toBeNull();
    expect(refuseAddress('10.2.0.1', allow)).not.toBeNull();
    expect(refuseAddress('::1', allow)).toBeNull();
    expect(refuseAddress('169.254.1.1', allow)).toBeNull();
    expect(refuseAddress('169.254.169.254', allow)).toContain('metadata');
  });

  it('rejects an OUTBOUND_ALLOW entry that is not a range, naming it', () => {
    expect(() => parseAllowList('127.0.0.1/32,intranet')).toThrow(/'intranet'/);
    expect(() => parseAllowList('10.0.0.0/33')).toThrow(/10\.0\.0\.0\/33/);
    expect(parseAllowList(' ,')).toEqual([]);
  });
});

describe('checkUrl (save time)', () => {
  const strict = createOutbound();

  it.each(INWARD)('refuses %s (%s) with a 400 naming the field', async (url) => {
    const err = await strict.checkUrl(url, 'config.url').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('BAD_REQUEST');
    expect((err as AppError).message).toMatch(/^config\.url: .*OUTBOUND_ALLOW/);
  });

  it('accepts public addresses and names that do not resolve (sending checks again)', async () => {
    await expect(strict.checkUrl('https://8.8.8.8/hook', 'config.url')).resolves.toBeUndefined();
    await expect(strict.checkUrl('https://[2606:4700::1]/', 'config.url')).resolves.toBeUndefined();
    await expect(strict.checkUrl('https://hooks.invalid/x', 'config.url')).resolves.toBeUndefined();
  });

  it('refuses other schemes, and http where https is required', async () => {
    await expect(strict.checkUrl('file:///etc/passwd', 'config.url')).rejects.toThrow(/config\.url: must be/);
    await expect(strict.checkUrl('gopher://8.8.8.8/', 'config.url')).rejects.toThrow(/must be/);
    await expect(strict.checkUrl('http://8.8.8.8/p', 'endpoint', { https: true })).rejects.toThrow(
      /^endpoint: must be an https URL/,
    );
  });
});

describe('post (send time) against a loopback canary', () => {
  const hits: string[] = [];
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/landed` }).end();
        return;
      }
      res.writeHead(req.url === '/fail' ? 500 : 200).end('SECRET-INTERNAL-DATA: root:x:0:0');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('refuses every inward spelling without connecting', async () => {
    const strict = createOutbound();
    hits.length = 0;
    for (const host of [
      '127.0.0.1',
      '127.1',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      'localhost',
      '[::ffff:127.0.0.1]',
    ]) {
      const err = await strict.post(`http://${host}:${port}/x`, '{}', {}).catch((e: unknown) => e);
      expect(err, host).toBeInstanceOf(OutboundError);
      expect((err as Error).message).toBe('destination refused: not a public address');
    }
    expect(hits).toEqual([]);
  });

  it('reaches an allowed receiver, keeps only the status of a failure, and never follows a redirect', async () => {
    const allowed = createOutbound({ allow: '127.0.0.1/32' });
    hits.length = 0;
    await allowed.post(`http://localhost:${port}/ok`, '{}', {});
    await expect(allowed.post(`http://127.0.0.1:${port}/fail`, '{}', {})).rejects.toThrow(/^HTTP 500$/);
    await expect(allowed.post(`http://127.0.0.1:${port}/redirect`, '{}', {})).rejects.toThrow(/^HTTP 302$/);
    expect(hits).toEqual(['POST /ok', 'POST /fail', 'POST /redirect']);
  });

  it('one fixed reason whatever is (not) listening on the port', async () => {
    const allowed = createOutbound({ allow: '127.0.0.1/32' });
    const closed = await new Promise<number>((r) => {
      const s = http.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => r(p));
      });
    });
    const e1 = await allowed.post(`https://127.0.0.1:${closed}/`, '', {}).catch((e: Error) => e.message);
    const e2 = await allowed.post(`https://127.0.0.1:${port}/`, '', {}).catch((e: Error) => e.message);
    expect(e1).toBe('connection failed');
    expect(e2).toBe('connection failed');
  });
});
