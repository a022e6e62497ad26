import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT_NODE_FLAGS } from '../scripts/node-flags';

describe('agent node flags', () => {
  it('the systemd unit runs the agent with the flags the bench and the tests use', () => {
    const unit = readFileSync(new URL('../deploy/clusterscope-agent.service', import.meta.url), 'utf8');
    const exec = /^ExecStart=(.*)$/m.exec(unit)?.[1];
    expect(exec).toBe(
      `/usr/bin/node ${AGENT_NODE_FLAGS.join(' ')} /opt/clusterscope/agent.js --config /etc/clusterscope/agent.yaml`,
    );
  });
});
