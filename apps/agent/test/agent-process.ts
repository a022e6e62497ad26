/** Build the agent bundle once per test run and spawn it as a real process. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_NODE_FLAGS } from '../scripts/node-flags';
import { tempDir } from './temp';

const appRoot = fileURLToPath(new URL('..', import.meta.url));
let built: string | undefined;

/** Build dist into a private temp dir (never races with `pnpm build`). Returns the agent.js path. */
export function buildAgent(): string {
  if (!built) {
    const out = tempDir('agent-dist');
    execFileSync(process.execPath, ['build.mjs', '--outdir', out], { cwd: appRoot, stdio: 'pipe' });
    built = join(out, 'agent.js');
  }
  return built;
}

export interface AgentProcess {
  child: ChildProcess;
  logs: () => Record<string, unknown>[];
  exited: Promise<number | null>;
}

export function writeConfig(dir: string, yaml: string): string {
  const p = join(dir, 'agent.yaml');
  writeFileSync(p, yaml);
  return p;
}

/** Runs `agentJs` with the production node flags (scripts/node-flags.ts). */
export function spawnAgent(agentJs: string, args: string[]): AgentProcess {
  const child = spawn(process.execPath, [...AGENT_NODE_FLAGS, agentJs, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buf = '';
  const lines: Record<string, unknown>[] = [];
  child.stderr!.on('data', (c: Buffer) => {
    buf += c.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push({ msg: line });
      }
    }
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, logs: () => lines, exited };
}

export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
