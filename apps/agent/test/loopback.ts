import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts a stand-in server on a free loopback port: its URL and how to stop it. */
export async function listenOnLoopback(server: http.Server) {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
