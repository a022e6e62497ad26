-- AlterTable
ALTER TABLE "Workload" ADD COLUMN     "changeClusterIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "ClusterBuild" (
    "clusterId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "builds" JSONB NOT NULL DEFAULT '{}',
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClusterBuild_pkey" PRIMARY KEY ("clusterId")
);

-- CreateTable
CREATE TABLE "ClusterChange" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "fromTag" TEXT NOT NULL,
    "toTag" TEXT NOT NULL,
    "nodeIds" INTEGER[],
    "detectedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "firedAt" TIMESTAMP(3),
    "waiting" TEXT,
    "runIds" TEXT[],

    CONSTRAINT "ClusterChange_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ClusterBuild_organizationId_idx" ON "ClusterBuild"("organizationId");

-- CreateIndex
CREATE INDEX "ClusterChange_organizationId_clusterId_detectedAt_idx" ON "ClusterChange"("organizationId", "clusterId", "detectedAt");
