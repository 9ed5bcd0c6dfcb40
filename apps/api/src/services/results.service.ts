// The load-results use case: a runner's result file in, normalized points out.
import type { ImportResultsResponse, ResultFormat, StoredLoadResult } from '@meshbench/schema';
import { withRequestedPercentiles } from '../domain/bucket-percentiles.ts';
import { AppError, notFound } from '../errors.ts';
import { decodeResults, ResultFileError, type ResultFileProblem } from '../ingest/results/index.ts';
import { findBadValue } from '../ingest/stored-text.ts';
import { formatTimestampUs } from '../ingest/timestamps.ts';
import type { ResultsRepository } from '../repositories/results.repository.ts';
import type { RunsRepository } from '../repositories/runs.repository.ts';
import type { UploadCounts } from './upload-counts.ts';

/**
 * Unreadable files are 400, readable ones that do not fit are 422, unknown kinds 415, files
 * past a size limit of their kind 413.
 */
const STATUS: Record<ResultFileProblem, number> = {
  empty: 400,
  invalid_json: 400,
  truncated: 400,
  non_finite: 400,
  undetectable: 415,
  format_mismatch: 422,
  invalid_value: 422,
  no_results: 422,
  too_large: 413,
  too_complex: 422,
};

export function resultsService(deps: {
  runs: RunsRepository;
  results: ResultsRepository;
  /** Where files stored are counted (rejections: by the route). */
  uploads: UploadCounts;
}) {
  const { runs, results, uploads } = deps;
  const runOf = async (runRef: string) => {
    const run = await runs.find(runRef);
    if (!run) throw notFound(`run "${runRef}"`);
    return run;
  };

  return {
    async import(
      runRef: string,
      text: string,
      format: ResultFormat | 'auto',
    ): Promise<ImportResultsResponse> {
      const run = await runOf(runRef);
      let decoded: Awaited<ReturnType<typeof decodeResults>>;
      try {
        decoded = await decodeResults(text, format);
      } catch (error) {
        if (error instanceof ResultFileError) {
          throw new AppError(STATUS[error.problem], error.problem, error.message, {
            ...(error.line !== undefined ? { line: error.line } : {}),
            ...(error.field !== undefined ? { field: error.field } : {}),
          });
        }
        throw error;
      }
      // What no column can hold as sent (NUL, lone surrogates, 1e400) is refused by name.
      const bad = findBadValue(decoded.results);
      if (bad) {
        const [index, ...field] = bad.path.split('.');
        const at = field.join('.');
        throw new AppError(
          422,
          'invalid_value',
          `result ${Number(index) + 1}: ${at ? `"${at}" ` : ''}${bad.reason}`,
          at ? { field: at } : {},
        );
      }
      const imported = await results.insert(run.id, decoded.format, decoded.results);
      uploads.countStored(imported);
      return { format: decoded.format, imported, unmapped: decoded.unmapped };
    },

    /** A run's results; `percentiles` the file lacks are computed from its histogram. */
    async list(runRef: string, percentiles: number[] = []): Promise<StoredLoadResult[]> {
      const run = await runOf(runRef);
      const rows = await results.ofRun(run.id);
      return rows.map(({ runId: _runId, createdAt: _createdAt, startedAtUs, ...r }) => ({
        ...r,
        format: r.format as ResultFormat,
        percentiles: withRequestedPercentiles(r.percentiles, r.histogram, percentiles),
        startedAt: startedAtUs === null ? null : formatTimestampUs(startedAtUs),
      }));
    },
  };
}
export type ResultsService = ReturnType<typeof resultsService>;
