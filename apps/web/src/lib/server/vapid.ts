import fs from 'node:fs';
import path from 'node:path';
import { generateVapidKeys } from '@clusterscope/services/alerting';
import { type TLogger } from '@clusterscope/services/core';
import type { TEnv } from './env';

/**
 * VAPID keys for Web Push: VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY, else a pair generated once into
 * `<data dir>/vapid.json` (0600). Several web instances must share one pair: set the variables then.
 */
export function loadVapid(
  env: TEnv,
  log: TLogger,
): { publicKey: string; privateKey: string; subject: string } | undefined {
  const subject = env.VAPID_SUBJECT ?? `mailto:no-reply@${new URL(env.ORIGIN).hostname || 'localhost'}`;
  if (env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY)
    return { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY, subject };
  const dir = env.DATA_DIR ?? path.dirname(path.resolve(env.CLICKHOUSE_PATH));
  const file = path.join(dir, 'vapid.json');
  try {
    if (!fs.existsSync(file)) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(file, JSON.stringify(generateVapidKeys()), { mode: 0o600, flag: 'wx' });
    }
    const keys = JSON.parse(fs.readFileSync(file, 'utf8')) as { publicKey: string; privateKey: string };
    return { publicKey: keys.publicKey, privateKey: keys.privateKey, subject };
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'web push disabled: no VAPID keys');
    return undefined;
  }
}
