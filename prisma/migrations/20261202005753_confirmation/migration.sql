-- AlterTable
ALTER TABLE "Alert" ADD COLUMN     "confirmNote" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "confirmation" TEXT NOT NULL DEFAULT 'none';

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "confirmRuns" INTEGER,
ADD COLUMN     "confirmsRunId" TEXT,
ADD COLUMN     "evaluation" JSONB;

-- AlterTable
ALTER TABLE "Workload" ADD COLUMN     "confirmRuns" INTEGER NOT NULL DEFAULT 2;
