// Checks an API answer in a test against the zod schema of its route (@meshbench/schema).
import type { z } from 'zod';

/** The answer's body, typed; fails the test, naming each field at fault, when it is not what its schema says. */
export function checkAnswer<S extends z.ZodType>(
  path: string,
  status: number,
  body: unknown,
  schema: S,
): z.output<S> {
  const parsed = schema.safeParse(body);
  // The body as it came (not stripped), so an exact toEqual still sees all of it.
  if (parsed.success) return body as z.output<S>;
  const issues = parsed.error.issues
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  throw new Error(`${path} answered ${status} with a body its schema refuses: ${issues}`);
}
