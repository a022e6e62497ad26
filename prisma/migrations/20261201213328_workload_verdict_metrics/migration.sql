-- AlterTable
ALTER TABLE "Workload" ADD COLUMN     "verdictMetrics" TEXT[] DEFAULT ARRAY[]::TEXT[];
