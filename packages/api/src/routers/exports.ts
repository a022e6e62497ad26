import { z } from 'zod';
import { exportComparison, exportResults, exportRuns, parseExportFormat } from '@clusterscope/services/runs';
import { ZExportFile, ZRunFilter, ZRunId } from '@clusterscope/schema';
import { orgProcedure } from '../trpc';

const ZFormat = z.string().optional();

/** Downloads (served with Content-Disposition by apps/web /api/v1/export/*). */
export const exportProcedures = {
  exportRuns: orgProcedure
    .input(ZRunFilter.extend({ format: ZFormat }))
    .output(ZExportFile)
    .query(({ ctx, input: { format, ...filter } }) =>
      exportRuns(ctx.deps, ctx.caller, filter, parseExportFormat(format)),
    ),
  exportResults: orgProcedure
    .input(ZRunId.extend({ format: ZFormat }))
    .output(ZExportFile)
    .query(({ ctx, input }) =>
      exportResults(ctx.deps, ctx.caller, input.id, parseExportFormat(input.format)),
    ),
  exportComparison: orgProcedure
    .input(z.object({ runs: z.string().min(1).max(600), format: ZFormat }))
    .output(ZExportFile)
    .query(({ ctx, input }) =>
      exportComparison(ctx.deps, ctx.caller, input.runs, parseExportFormat(input.format)),
    ),
};
