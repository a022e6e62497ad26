-- AlterTable
ALTER TABLE "Agent" ADD COLUMN     "jobLimits" JSONB;

-- AlterTable
ALTER TABLE "Workload" ADD COLUMN     "targetSecret" TEXT;
