/** The agent's own counters, served as Prometheus text on a local port. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Labels = Record<string, string>;

interface Family {
  help: string;
  type: 'counter' | 'gauge';
  values: Map<string, number>;
}

const labelKey = (l: Labels = {}) =>
  Object.entries(l)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');

export class Metrics {
  private families = new Map<string, Family>();

  private family(name: string, type: Family['type'], help: string): Family {
    let f = this.families.get(name);
    if (!f) this.families.set(name, (f = { help, type, values: new Map() }));
    return f;
  }

  inc(name: string, help: string, by = 1, labels?: Labels): void {
    const f = this.family(name, 'counter', help);
    const k = labelKey(labels);
    f.values.set(k, (f.values.get(k) ?? 0) + by);
  }

  set(name: string, help: string, value: number, labels?: Labels): void {
    this.family(name, 'gauge', help).values.set(labelKey(labels), value);
  }

  get(name: string, labels?: Labels): number | undefined {
    return this.families.get(name)?.values.get(labelKey(labels));
  }

  render(): string {
    let out = '';
    for (const [name, f] of this.families) {
      out += `# HELP ${name} ${f.help}\n# TYPE ${name} ${f.type}\n`;
      for (const [k, v] of f.values) out += `${name}${k ? `{${k}}` : ''} ${v}\n`;
    }
    return out;
  }
}

/** Serve GET /metrics on `listen` ("host:port"); resolves with the bound address. */
export async function serveMetrics(
  metrics: Metrics,
  listen: string,
  refresh?: () => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const i = listen.lastIndexOf(':');
  const host = listen.slice(0, i) || '127.0.0.1';
  const port = Number(listen.slice(i + 1));
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/metrics' || req.url === '/')) {
      refresh?.();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(metrics.render());
    } else {
      res.writeHead(404);
      res.end('not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${host}:${addr.port}/metrics`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
