-- AlterTable
ALTER TABLE "Alert" ADD COLUMN     "issueUrl" TEXT,
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'untriaged',
ADD COLUMN     "triageNote" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "triagedAt" TIMESTAMP(3),
ADD COLUMN     "triagedBy" TEXT;

-- AlterTable
ALTER TABLE "Workload" ADD COLUMN     "baselineFrom" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "WorkloadSchedule" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "workloadId" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "clusterIds" TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WorkloadSchedule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ScheduleSlot" (
    "id" TEXT NOT NULL,
    "scheduleId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "slot" TIMESTAMP(3) NOT NULL,
    "runId" TEXT,
    "skipped" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ScheduleSlot_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WorkloadSchedule_organizationId_workloadId_idx" ON "WorkloadSchedule"("organizationId", "workloadId");

-- CreateIndex
CREATE UNIQUE INDEX "ScheduleSlot_scheduleId_clusterId_slot_key" ON "ScheduleSlot"("scheduleId", "clusterId", "slot");

-- AddForeignKey
ALTER TABLE "WorkloadSchedule" ADD CONSTRAINT "WorkloadSchedule_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WorkloadSchedule" ADD CONSTRAINT "WorkloadSchedule_workloadId_fkey" FOREIGN KEY ("workloadId") REFERENCES "Workload"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ScheduleSlot" ADD CONSTRAINT "ScheduleSlot_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "WorkloadSchedule"("id") ON DELETE CASCADE ON UPDATE CASCADE;
