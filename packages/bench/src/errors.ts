import type { TFormat } from '@clusterscope/schema';

/**
 * Output that no parser can read. `recognised` says what was found (for an API 422 answer),
 * `tool` is the tool it was parsed as, if any.
 */
export class ParseError extends Error {
  readonly recognised: string;
  readonly tool: TFormat | null;
  constructor(message: string, recognised: string, tool: TFormat | null = null) {
    super(message);
    this.name = 'ParseError';
    this.recognised = recognised;
    this.tool = tool;
  }
}
