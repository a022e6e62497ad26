/** The db package's only reader of process.env. */
import { z } from 'zod';

const ZDbEnv = z.object({
  DATABASE_URL: z
    .string()
    .trim()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
});
export type TDbEnv = z.infer<typeof ZDbEnv>;

/** Parses the db env; throws an error naming the bad variable. */
export function readDbEnv(source: NodeJS.ProcessEnv = process.env): TDbEnv {
  const parsed = ZDbEnv.safeParse({ DATABASE_URL: source.DATABASE_URL });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid environment: ${issue?.path.join('.') || 'DATABASE_URL'}: ${issue?.message}`);
  }
  return parsed.data;
}
