// The one error a result file can raise: what is wrong with it, and where.

export type ResultFileProblem =
  | 'empty'
  | 'invalid_utf8'
  | 'undetectable'
  | 'format_mismatch'
  | 'invalid_json'
  | 'invalid_histogram'
  | 'invalid_line'
  | 'truncated'
  | 'non_finite'
  | 'invalid_value'
  | 'no_results'
  | 'too_large'
  | 'too_complex';

export class ResultFileError extends Error {
  readonly field?: string;
  readonly line?: number;

  constructor(
    readonly problem: ResultFileProblem,
    message: string,
    where: { field?: string; line?: number } = {},
  ) {
    super(message);
    this.name = 'ResultFileError';
    if (where.field !== undefined) this.field = where.field;
    if (where.line !== undefined) this.line = where.line;
  }
}
