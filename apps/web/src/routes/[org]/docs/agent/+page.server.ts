import { getEnv } from '$lib/server/env';
import type { PageServerLoad } from './$types';

/** The admin CLI as this server's operators run it (ADMIN_COMMAND: the image has no npm). */
export const load: PageServerLoad = () => ({ adminCommand: getEnv().ADMIN_COMMAND });
