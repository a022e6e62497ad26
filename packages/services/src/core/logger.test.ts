import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('createLogger', () => {
  it('writes one JSON line per call to stderr, levels by name, nothing below the level', () => {
    const script = `
      import { createLogger } from './logger.ts';
      const log = createLogger();
      log.warn({ agent: 'a1' }, 'heartbeat ignored');
      log.debug('below the level');`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: import.meta.dirname,
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'info' },
    });
    expect(run.status).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'warn', agent: 'a1', msg: 'heartbeat ignored' });
    expect(Date.parse(line.time as string)).toBeGreaterThan(0);
  });
});
