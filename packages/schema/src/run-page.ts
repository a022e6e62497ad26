import { z } from 'zod';
import { ZRunComparison, ZRunView } from './compare';
import { ZRunEnvironment } from './environment';

/** The run page: the run, its comparison with the baseline asked for, and the environment during it. */
export const ZRunPageView = z.object({
  run: ZRunView,
  comparison: ZRunComparison,
  environment: ZRunEnvironment,
});
export type TRunPageView = z.infer<typeof ZRunPageView>;
