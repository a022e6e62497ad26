/**
 * The systemd drop-in that makes the directories benchmark jobs write (jobs.work_dir, jobs.allowed_dirs)
 * writable under the unit's ProtectSystem=strict; the state directory is writable already.
 */
import type { TAgentConfig } from './config';

export const STATE_DIR = '/var/lib/clusterscope-agent';

const quote = (p: string) => (/[\s"\\]/.test(p) ? `"${p.replace(/["\\]/g, '\\$&')}"` : p);

export function systemdDropin(config: TAgentConfig): string {
  const dirs = config.jobs.enabled ? [config.jobs.work_dir, ...config.jobs.allowed_dirs] : [];
  const extra = [...new Set(dirs)].filter((d) => d !== STATE_DIR && !d.startsWith(`${STATE_DIR}/`));
  return [
    '# /etc/systemd/system/clusterscope-agent.service.d/jobs.conf, written by `clusterscope-agent --systemd-dropin`',
    '# from jobs.work_dir and jobs.allowed_dirs; re-run it after changing them, then `systemctl daemon-reload`.',
    '[Service]',
    ...(extra.length
      ? [`ReadWritePaths=${extra.map(quote).join(' ')}`]
      : ['# nothing outside the state directory']),
    '',
  ].join('\n');
}
